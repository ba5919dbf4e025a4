// lstm-ptb: the 2-layer LSTM language model of PyTorch's word_language_model
// example (RNNModel: encoder Embedding, nn.LSTM, decoder Linear, untied) at
// the size of Zaremba et al.'s "large" Penn Treebank model: vocabulary
// 10,000, embedding and hidden 1,500, dropout between layers, 35 time steps
// by default. nn.LSTM's two layers appear as rnn.l0 and rnn.l1.

#include "model_families.hpp"

namespace mgsim::zoo {

ModelGraph make_lstm_ptb(const ModelOptions& o) {
  constexpr std::int64_t kVocab = 10000, kWidth = 1500;
  GraphBuilder b("lstm-ptb", o.batch_size, o.dtype_bytes);
  Tensor x = b.embedding("encoder", b.input("input", {o.batch_size, o.seq_len}), kVocab, kWidth);
  x = b.dropout("drop.input", x);
  x = b.lstm("rnn.l0", x, kWidth, 0);
  x = b.dropout("rnn.dropout", x);
  x = b.lstm("rnn.l1", x, kWidth, 1);
  x = b.dropout("drop.output", x);
  b.linear("decoder", x, kVocab);
  return b.finish();
}

}  // namespace mgsim::zoo

#include "mgsim/io/json_document.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace mgsim {
namespace {

using nlohmann::json;

/// nlohmann's SAX events -> a document. Open containers sit on a stack of
/// pointers; they stay valid because a container only grows while it is the
/// innermost open one (map nodes never move, an array's last element is the
/// only one open).
class DocumentBuilder {
 public:
  explicit DocumentBuilder(const StreamedArray* streamed) : streamed_(streamed) {}

  bool null() { return scalar(nullptr); }
  bool boolean(bool value) { return scalar(value); }
  bool number_integer(json::number_integer_t value) { return scalar(value); }
  bool number_unsigned(json::number_unsigned_t value) { return scalar(value); }
  bool number_float(json::number_float_t value, const json::string_t&) { return scalar(value); }
  bool string(json::string_t& value) { return scalar(std::move(value)); }
  bool binary(json::binary_t& value) { return scalar(json::binary(std::move(value))); }

  bool start_object(std::size_t) {
    open_.push_back(place(json::object()));
    return true;
  }
  bool start_array(std::size_t) {
    const bool streamed = streamed_ != nullptr &&
                          (streamed_->key.empty() ? open_.empty() : open_.size() == 1 && top_key_ == streamed_->key);
    open_.push_back(place(json::array()));
    if (streamed) stream_ = open_.back();
    return true;
  }
  bool key(json::string_t& name) {
    json& object = *open_.back();
    if (object.contains(name)) throw JsonSyntaxError(fmt::format("key \"{}\" given twice in one object", name));
    if (open_.size() == 1) top_key_ = name;
    slot_ = &object[name];
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    throw JsonSyntaxError(error.what());
  }

  json take_document() { return std::move(root_); }

 private:
  /// Puts a new value where the parser is: the root, the end of the open
  /// array, or the slot of the last key of the open object.
  json* place(json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *open_.back();
    if (!parent.is_array()) return &(*slot_ = std::move(value));
    parent.push_back(std::move(value));
    return &parent.back();
  }

  bool scalar(json&& value) {
    place(std::move(value));
    element_done();
    return true;
  }

  bool close() {
    if (open_.back() == stream_) stream_ = nullptr;  // the streamed array stays, empty
    open_.pop_back();
    element_done();
    return true;
  }

  /// A value just completed; hands it out when it is an element of the streamed array.
  void element_done() {
    if (stream_ == nullptr || open_.back() != stream_) return;
    streamed_->take(stream_->back(), handed_out_++);
    stream_->clear();
  }

  const StreamedArray* streamed_;
  json root_;
  std::vector<json*> open_;
  json* slot_ = nullptr;
  std::string top_key_;      ///< the last key of the top-level object
  json* stream_ = nullptr;   ///< the streamed array while it is open
  std::size_t handed_out_ = 0;
};

}  // namespace

nlohmann::json parse_json(std::istream& in, const StreamedArray* streamed) {
  DocumentBuilder builder(streamed);
  json::sax_parse(in, &builder);
  return builder.take_document();
}

}  // namespace mgsim

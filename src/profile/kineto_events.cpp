#include "kineto_events.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "mgsim/error.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/limits.hpp"

namespace mgsim::profile::kineto {
namespace {

/// Latest timestamp: 4e15 us, the year 2096 in Kineto's microseconds since
/// 1970; with a duration of at most a year, every time in ns fits in int64.
constexpr double kMaxTimestampUs = 4e15;

/// Bytes of an element of a PyTorch dtype name ("Float", "BFloat16", ...), 0 when not known.
std::int64_t dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, std::int64_t, std::less<>> kBytes = {
      {"Double", 8}, {"Long", 8}, {"Float", 4}, {"Int", 4}, {"Half", 2}, {"BFloat16", 2}, {"Short", 2},
      {"Char", 1},   {"Byte", 1}, {"Bool", 1}};
  const auto found = kBytes.find(dtype);
  return found == kBytes.end() ? 0 : found->second;
}

/// NCCL's kernels (ncclKernel_AllReduce_..., ncclDevKernel_..., all-to-all
/// as ncclDevKernel_SendRecv): communication, launched from the autograd
/// thread by DDP's hooks, not compute.
bool is_communication(const std::string& kernel) { return ascii_lower(kernel.substr(0, 4)) == "nccl"; }

class EventReader {
 public:
  EventReader(const std::string& source, std::string_view list, std::size_t index)
      : source_(source), list_(list), index_(index) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw TraceError(fmt::format("{}: {}[{}]: {}", source_, list_, index_, what));
  }

  /// A time in microseconds ("ts", "dur") as integer ns: a number in [0, max_us].
  std::int64_t time_ns(const nlohmann::json& event, const char* key, double max_us) const {
    const auto found = event.find(key);
    if (found == event.end() || !found->is_number() || !(found->get<double>() >= 0 && found->get<double>() <= max_us)) {
      fail(fmt::format("expected a number \"{}\" in [0, {:g}] (microseconds)", key, max_us));
    }
    // Whole microseconds since 1970 (PyTorch <= 2.0 writes them as integers,
    // ~1.7e15) times 1000 pass 2^53, where a double is off by up to 128 ns:
    // the whole part is scaled as an integer, only the fraction as a double.
    if (found->is_number_integer()) return found->get<std::int64_t>() * 1000;
    const double us = found->get<double>();
    const double whole = std::floor(us);
    return static_cast<std::int64_t>(whole) * 1000 + std::llround((us - whole) * 1000.0);
  }

  /// A string field, "" when absent.
  std::string text(const nlohmann::json& event, const char* key) const {
    const auto found = event.find(key);
    if (found == event.end()) return {};
    if (!found->is_string()) fail(fmt::format("expected a string \"{}\"", key));
    return found->get<std::string>();
  }

  /// pid / tid may be numbers or strings; only equality matters. Every
  /// event the import reads has both (red team: a backward node without its
  /// "tid" was read on thread 0, and the model gained a layer).
  std::uint64_t id(const nlohmann::json& event, const char* key) const {
    const auto found = event.find(key);
    if (found == event.end()) fail(fmt::format("expected \"{}\" (a number or a string)", key));
    if (found->is_number_integer()) return static_cast<std::uint64_t>(found->get<std::int64_t>());
    if (found->is_number()) return std::hash<double>{}(found->get<double>());
    if (found->is_string()) return std::hash<std::string>{}(found->get<std::string>());
    fail(fmt::format("expected \"{}\" to be a number or a string, got {}", key, found->type_name()));
  }

  static std::optional<std::int64_t> arg_int(const nlohmann::json* args, const char* key) {
    if (args == nullptr) return std::nullopt;
    const auto found = args->find(key);
    if (found == args->end()) return std::nullopt;
    // An id is a whole number in [0, 2^63): 2^64 - 1 once read as -1, 2^63 as -2^63 (red team); a negative
    // one, or anything else, is none.
    if (found->is_number()) return whole_number(*found, 0, std::numeric_limits<std::int64_t>::max());
    if (found->is_string()) {
      try {
        const std::int64_t value = std::stoll(found->get<std::string>());
        return value >= 0 ? std::optional(value) : std::nullopt;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

 private:
  const std::string& source_;
  std::string_view list_;
  std::size_t index_;
};

const nlohmann::json& event_list(const nlohmann::json& document, const std::string& source) {
  if (document.is_array()) return document;
  if (document.is_object()) {
    const auto found = document.find("traceEvents");
    if (found != document.end() && found->is_array()) return *found;
  }
  throw TraceError(fmt::format("{}: expected a Chrome trace: an object with a \"traceEvents\" array", source));
}

void by_start(std::vector<Span>& spans) {
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start_ns < b.start_ns; });
}

/// Refuses two of `spans` that `counted` picks and that are alike in name,
/// thread, start and end: events written twice (a gradient, a step counted
/// twice), never two real ones. Sorted copies, so any trace costs n log n.
void refuse_twice(const std::vector<Span>& spans, const std::function<bool(const Span&)>& counted,
                  const std::string& source) {
  std::vector<const Span*> picked;
  for (const Span& span : spans) {
    if (counted(span)) picked.push_back(&span);
  }
  const auto key = [](const Span* s) { return std::tie(s->start_ns, s->thread, s->end_ns, s->name); };
  std::sort(picked.begin(), picked.end(), [&](const Span* a, const Span* b) { return key(a) < key(b); });
  for (std::size_t i = 1; i < picked.size(); ++i) {
    if (key(picked[i - 1]) != key(picked[i])) continue;
    throw TraceError(fmt::format("{}: \"{}\" on thread {} from {} to {} ns appears twice: events written twice (a "
                                 "damaged or concatenated trace)",
                                 source, printable(picked[i]->name), picked[i]->thread, picked[i]->start_ns,
                                 picked[i]->end_ns));
  }
}

}  // namespace

void EventCollector::add(const nlohmann::json& event, std::size_t index) {
  const EventReader in(source_, list_, index);
  if (!event.is_object()) in.fail("expected an object");
  // Every Chrome trace event has a phase; one without is damaged, not skipped (a kernel would vanish).
  const auto phase = event.find("ph");
  if (phase == event.end() || !phase->is_string()) in.fail("expected a string \"ph\" (the event's phase)");
  // The Chrome trace format's phases; another ("", "x", "X ") is a damaged event (red team: a kernel vanished).
  static const std::set<std::string, std::less<>> kPhases = {"B", "E", "X", "i", "I", "C", "b", "n", "e", "s", "t", "f",
                                                             "P", "N", "O", "D", "M", "V", "v", "R", "c", "(", ")"};
  if (!kPhases.contains(phase->get<std::string>())) {
    in.fail(fmt::format("expected a Chrome trace phase \"ph\" (X for a complete event), got \"{}\"",
                        printable(phase->get<std::string>())));
  }
  if (*phase != "X") {  // only complete events carry durations; Kineto writes every GPU activity as one
    const std::string category = ascii_lower(in.text(event, "cat"));
    if ((*phase == "B" || *phase == "E") && (category == "kernel" || category.starts_with("gpu_"))) {
      in.fail(fmt::format("a {} event as a \"{}\" phase: expected \"X\", a complete event with its \"dur\"",
                          category, phase->get<std::string>()));
    }
    return;
  }
  const auto name_field = event.find("name");
  if (name_field == event.end() || !name_field->is_string()) in.fail("expected a string \"name\"");
  const std::string name = name_field->get<std::string>();
  const std::string category = ascii_lower(in.text(event, "cat"));
  const auto args_field = event.find("args");
  const nlohmann::json* args = args_field != event.end() && args_field->is_object() ? &*args_field : nullptr;
  const std::int64_t start = in.time_ns(event, "ts", kMaxTimestampUs);
  const std::int64_t end = start + in.time_ns(event, "dur", kMaxComputeSeconds * 1e6);

  if (category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset" || category == "memcpy" ||
      category == "memset") {
    if (category == "kernel" && is_communication(name)) {
      events_.communication.push_back({name, start, end, EventReader::arg_int(args, "correlation")});
      return;
    }
    const auto correlation = EventReader::arg_int(args, "correlation");
    if (!correlation) {
      ++events_.activities_without_correlation;
      events_.activities_without_correlation_ns += end - start;
      return;
    }
    const auto device = EventReader::arg_int(args, "device");
    const auto stream = EventReader::arg_int(args, "stream");
    events_.records.activities.push_back(
        {static_cast<std::uint64_t>(*correlation),
         static_cast<std::uint32_t>(device ? *device : static_cast<std::int64_t>(in.id(event, "pid"))),
         static_cast<std::uint32_t>(stream ? *stream : static_cast<std::int64_t>(in.id(event, "tid"))), start,
         end});
  } else if (category == "cuda_runtime" || category == "cuda_driver" || category == "runtime" ||
             category == "driver") {
    if (const auto correlation = EventReader::arg_int(args, "correlation")) {
      events_.records.launches.push_back(
          {static_cast<std::uint64_t>(*correlation), in.id(event, "tid"), start});
    }
  } else if (name == "record_param_comms" && args != nullptr) {
    CommCall call{in.id(event, "tid"), start, end, in.text(*args, "Collective name"), 0, 0};
    const auto elements = EventReader::arg_int(args, "In msg nelems");
    const std::int64_t element = dtype_bytes(in.text(*args, "dtype"));
    if (elements && *elements > 0 && element > 0 && *elements <= kMaxTensorElements) call.bytes = *elements * element;
    const auto group = EventReader::arg_int(args, "Group size");
    if (group && *group >= 1 && *group <= (1 << 20)) call.group_size = static_cast<int>(*group);
    events_.comm_calls.push_back(std::move(call));
  } else {
    // PyTorch >= 2 files record_function ranges (ProfilerStep#, Optimizer.step#) as "user_annotation" and
    // copies of them on the GPU's timeline as "gpu_user_annotation"; PyTorch 1.x as "cpu_op".
    const bool cpu = category == "cpu_op" || category == "operator" || category == "user_annotation";
    const bool python = category == "python_function";
    const bool step = name.starts_with("ProfilerStep#");
    if (category == "gpu_user_annotation" && step) ++events_.gpu_step_copies;
    std::vector<Span>* kind = (cpu || python) && step                  ? &events_.steps
                              : python && name.starts_with("nn.Module: ") ? &events_.modules
                              : cpu                                        ? &events_.operators
                                                                           : nullptr;
    if (kind == nullptr) return;
    Span span{name, in.id(event, "tid"), start, end, EventReader::arg_int(args, "Sequence number"), {}};
    for (const char* key : {"Input Dims", "Input type"}) {
      if (args != nullptr && args->contains(key)) span.inputs[key] = (*args)[key];
    }
    kind->push_back(std::move(span));
  }
}

Events EventCollector::take() && {
  std::stable_sort(events_.communication.begin(), events_.communication.end(),
                   [](const CommKernel& a, const CommKernel& b) { return a.start_ns < b.start_ns; });
  by_start(events_.operators);
  by_start(events_.modules);
  by_start(events_.steps);
  // A gradient or an optimizer step counted twice (red team: a duplicated "Optimizer.step#SGD.step" doubled the step).
  refuse_twice(events_.operators,
               [](const Span& s) { return s.name.ends_with(kAccumulateGrad) || s.name.starts_with(kOptimizerStep); },
               source_);
  refuse_twice(events_.steps, [](const Span&) { return true; }, source_);
  return std::move(events_);
}

Events read_events(const nlohmann::json& document, const std::string& source) {
  const nlohmann::json& list = event_list(document, source);
  EventCollector events(source, document.is_array() ? "" : "traceEvents");  // a bare list: "[5]" (red team)
  for (std::size_t i = 0; i < list.size(); ++i) events.add(list[i], i);
  return std::move(events).take();
}

}  // namespace mgsim::profile::kineto

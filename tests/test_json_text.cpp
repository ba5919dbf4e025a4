// JSON output: nlohmann's layout, numbers in their shortest round-trip form.

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "mgsim/io/json_text.hpp"
#include "mgsim/version.hpp"

namespace {

using mgsim::json_text;

}  // namespace

TEST_CASE("json_text prints a double in the fewest digits that read back as it", "[json_text]") {
  // nlohmann's dump prints 0.0016984980000000001 for this double (a value of
  // the K80 goldens): 17 digits where 10 identify it.
  CHECK(json_text(nlohmann::json(0.001698498), -1) == "0.001698498");
  // 0.1 + 0.2 is not the double nearest 0.3; 17 digits are its shortest form.
  CHECK(json_text(nlohmann::json(0.1 + 0.2), -1) == "0.30000000000000004");
  CHECK(json_text(nlohmann::json(2.0), -1) == "2.0");  // stays a float when read back
  CHECK(json_text(nlohmann::json(1e-05), -1) == "1e-05");
  CHECK(json_text(nlohmann::json(-2.5e+20), -1) == "-2.5e+20");
  CHECK(json_text(nlohmann::json(std::numeric_limits<double>::quiet_NaN()), -1) == "null");  // as nlohmann
  CHECK(json_text(nlohmann::json(std::numeric_limits<double>::infinity()), -1) == "null");
}

TEST_CASE("json_text reads back bit for bit, never longer than nlohmann's dump", "[json_text]") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (int i = 0; i < 20000; ++i) {
    const double value = std::bit_cast<double>(bits(rng));
    if (!std::isfinite(value)) continue;
    const std::string text = json_text(nlohmann::json(value), -1);
    INFO(text);
    CHECK(std::bit_cast<std::uint64_t>(nlohmann::json::parse(text).get<double>()) == std::bit_cast<std::uint64_t>(value));
    CHECK(text.size() <= nlohmann::json(value).dump().size());
  }
}

TEST_CASE("json_text lays a document out as nlohmann's dump does", "[json_text]") {
  // No floats whose nlohmann form is not the shortest: the two texts must be equal byte for byte.
  const nlohmann::json document = {{"name", "a \"quoted\" name\twith\ncontrol \x01 and é"},
                                   {"empty_array", nlohmann::json::array()},
                                   {"empty_object", nlohmann::json::object()},
                                   {"nested", {{"list", {1, -2, 3.5, true, nullptr, "x"}}, {"big", 18446744073709551615ULL}}}};
  for (const int indent : {-1, 0, 1, 2, 4}) {
    INFO(indent);
    CHECK(json_text(document, indent) == document.dump(indent));
  }
  const nlohmann::ordered_json ordered = {{"z", 1}, {"a", {{"y", 0.25}, {"b", "c"}}}};
  CHECK(json_text(ordered, 1) == ordered.dump(1));
}

TEST_CASE("a stamped report names mgsim's version and the report format", "[json_text]") {
  nlohmann::json report = {{"results", nlohmann::json::array()}};
  mgsim::stamp_report(report);
  CHECK(report.at("mgsim_version") == std::string(mgsim::version()));
  CHECK(report.at("format_version") == mgsim::kReportFormatVersion);
  CHECK(report.size() == 3);
}

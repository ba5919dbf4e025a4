#include "config_parts.hpp"

#include "mgsim/error.hpp"

namespace mgsim {

Link read_link(JsonReader in) {
  Link link;
  link.alpha_s = in.number("alpha_us", 0.0, true) * 1e-6;
  link.beta_s_per_byte = in.number("beta_s_per_byte", 0.0, true);
  link.gamma_s_per_byte = in.has("gamma_s_per_byte") ? in.number("gamma_s_per_byte", 0.0, true) : 0.0;
  in.reject_unknown();
  return link;
}

Network read_network(JsonReader in) {
  if (in.has("intra") || in.has("inter")) {
    Network network{read_link(in.object("intra")), read_link(in.object("inter"))};
    in.reject_unknown();
    return network;
  }
  const Link link = read_link(in);
  return {link, link};
}

ScheduleSpec read_schedule(const nlohmann::json& value, const JsonWhere& where) {
  ScheduleSpec spec;
  if (value.is_string()) {
    spec.name = read_text(value, where);
  } else {
    JsonReader in(value, where);
    spec.name = in.text("name");
    for (const auto& [key, parameter] : value.items()) {
      if (key == "name") continue;
      spec.params[key] = read_number(parameter, where.key(key), 0.0, true);
    }
  }
  try {
    make_schedule(spec.name, spec.params);
  } catch (const ConfigError& error) {
    where.fail(error.what());
  }
  return spec;
}

}  // namespace mgsim

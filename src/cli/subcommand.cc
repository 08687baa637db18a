#include "cli/subcommand.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <ostream>
#include <thread>

#include "engine/model_names.h"

namespace rjsim::cli {

CLI::App* CommandTable::add(CLI::App& rjsim, std::string name, std::string description,
                            std::vector<std::string> examples) {
  CLI::App* command = rjsim.add_subcommand(std::move(name), std::move(description));
  command->group("Commands");
  std::string footer = examples.size() == 1 ? "Example:" : "Examples:";
  for (const std::string& example : examples) footer += "\n  " + example;
  command->footer(footer);
  commands_.emplace_back(command, Action{});
  return command;
}

void CommandTable::set_action(CLI::App* command, Action action) {
  for (auto& [registered, registered_action] : commands_) {
    if (registered == command) {
      registered_action = std::move(action);
      return;
    }
  }
  throw std::logic_error(
      fmt::format("rjsim bug: set_action for unregistered subcommand {}", command->get_name()));
}

std::optional<std::pair<CLI::App*, Action>> CommandTable::selected() const {
  for (const auto& entry : commands_) {
    if (entry.first->parsed()) return entry;
  }
  return std::nullopt;
}

int not_implemented(Io& io, std::string_view command, int issue) {
  io.err << fmt::format("rjsim {}: not implemented yet (see issue {})\n", command, issue);
  return 3;
}

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names(engine::kModelNamesWithAlias.begin(),
                                              engine::kModelNamesWithAlias.end());
  return names;
}

// ---- Shared flags ----

CLI::Option* add_db_option(CLI::App& command, std::string& db_path, std::string_view what) {
  return command.add_option("--db", db_path, std::string(what))
      ->type_name("F")
      ->capture_default_str();
}

CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& seed, std::string_view what) {
  return command.add_option("--seed", seed, std::string(what))->type_name("N")->check(cli::seed());
}

CLI::Option* add_controller_option(CLI::App& command, std::string& controller,
                                   std::string_view what) {
  return command.add_option("--controller", controller, std::string(what))
      ->type_name("M")
      ->check(model_name());
}

CLI::Option* add_jobs_option(CLI::App& command, int& jobs) {
  return command
      .add_option("--jobs", jobs, "how many worker threads (1 or more; default: one per core)")
      ->type_name("N")
      ->check(at_least_one());
}

CLI::Option* add_json_flag(CLI::App& command, bool& json) {
  return command.add_flag("--json", json, "print one JSON object on stdout instead of the text");
}

CLI::Option* add_run_id_option(CLI::App& command, std::int64_t& id, std::string_view what) {
  return command.add_option("--run", id, std::string(what))->type_name("ID")->check(run_id());
}

// ---- Parsers ----

std::optional<std::int64_t> parse_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_duration_ms(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::optional<std::int64_t> number = parse_count(text.substr(0, digits));
  if (!number) return std::nullopt;
  std::string_view unit = text.substr(digits);
  std::int64_t unit_ms = 0;
  if (unit == "ms") unit_ms = 1;
  else if (unit == "s") unit_ms = 1000;
  else if (unit == "m") unit_ms = 60 * 1000;
  else if (unit == "h") unit_ms = 60 * 60 * 1000;
  else return std::nullopt;
  if (*number > std::numeric_limits<std::int64_t>::max() / unit_ms) return std::nullopt;
  return *number * unit_ms;
}

std::optional<Shard> parse_shard(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::optional<std::int64_t> index = parse_count(text.substr(0, slash));
  std::optional<std::int64_t> count = parse_count(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index >= *count) return std::nullopt;
  return Shard{*index, *count};
}

std::vector<std::string> split_models(std::string_view text) {
  std::vector<std::string> models;
  while (true) {
    std::size_t comma = text.find(',');
    models.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return models;
}

int worker_threads(int jobs) {
  if (jobs > 0) return jobs;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// ---- Validators ----
// A CLI11 validator returns "" to accept; otherwise its message, which CLI11 prefixes with the
// flag's name ("--jobs: ..."). The description (second argument) is left empty: each option's
// help text says what it takes.

CLI::Validator at_least_one() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::optional<std::int64_t> value = parse_count(text);
        if (value && *value >= 1 && *value <= std::numeric_limits<int>::max()) return "";
        return fmt::format("\"{}\" is not a whole number of 1 or more (use, e.g., 4)", text);
      },
      "");
}

CLI::Validator run_id() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::optional<std::int64_t> value = parse_count(text);
        if (value && *value >= 1) return "";
        return fmt::format(
            "\"{}\" is not a run id (use the run_id of a run in the database: 1, 2, ...)", text);
      },
      "");
}

CLI::Validator seed() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty();
        for (char c : text) digits = digits && c >= '0' && c <= '9';
        std::uint64_t value = 0;
        if (digits) {
          auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
          if (error == std::errc{} && end == text.data() + text.size()) return "";
        }
        return fmt::format("\"{}\" is not a seed (use a whole number from 0 to {})", text,
                           std::numeric_limits<std::uint64_t>::max());
      },
      "");
}

CLI::Validator one_of(std::vector<std::string> values) {
  return CLI::Validator(
      [values](std::string& text) -> std::string {
        for (const std::string& value : values) {
          if (text == value) return "";
        }
        return fmt::format("\"{}\" is not one of {}", text, fmt::join(values, ", "));
      },
      "");
}

CLI::Validator duration() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_duration_ms(text)) return "";
        return fmt::format("\"{}\" is not a duration (use, e.g., 500ms, 30s, 2m or 1h)", text);
      },
      "");
}

CLI::Validator shard() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_shard(text)) return "";
        return fmt::format(
            "\"{}\" is not a shard (use I/N with 0 <= I < N: 0/4, 1/4, 2/4 and 3/4 split the "
            "search in four)",
            text);
      },
      "");
}

namespace {
std::string unknown_model_message(std::string_view name) {
  return fmt::format("\"{}\" is not a model (use one of {})", name, fmt::join(model_names(), ", "));
}
bool is_model(std::string_view name) {
  for (const std::string& model : model_names()) {
    if (name == model) return true;
  }
  return false;
}
}  // namespace

CLI::Validator model_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return is_model(text) ? "" : unknown_model_message(text);
      },
      "");
}

CLI::Validator model_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::vector<std::string> models = split_models(text);
        for (const std::string& model : models) {
          if (!is_model(model)) return unknown_model_message(model);
        }
        if (models.size() < 2) {
          return fmt::format(
              "\"{}\" names one model; give two or more, separated by commas (e.g. "
              "kuberay-1.0,kuberay-1.1,kuberay-1.7)",
              text);
        }
        return "";
      },
      "");
}

}  // namespace rjsim::cli

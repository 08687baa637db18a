#include "explore/finding_shape.h"

#include <cctype>

#include "engine/chooser.h"

namespace rjsim::explore {
namespace {

// Kubernetes names and namespaces: DNS labels and subdomains (lower case, digits, '-' and '.').
bool is_name_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '/' || c == '_';
}

// "Kind/namespace/name" at `at` (Kind starts upper case): its end, else `at`.
std::size_t object_reference_end(std::string_view text, std::size_t at) {
  std::size_t end = at;
  int slashes = 0;
  while (end < text.size() && is_name_character(text[end])) {
    if (text[end] == '/') ++slashes;
    ++end;
  }
  return slashes >= 1 ? end : at;
}

std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

std::string label_of(engine::ChoicePoint point, const events::Event& event) {
  const std::string about = abstract_label(event.text("about"));
  switch (point) {
    case engine::ChoicePoint::step: return "step " + abstract_label(event.text("step"));
    case engine::ChoicePoint::cache_advance: return "stale read of " + about;
    case engine::ChoicePoint::write_outcome: return "failed write " + about;
    case engine::ChoicePoint::http_outcome: return "failed dashboard call " + first_word(about);   // not the URL
    case engine::ChoicePoint::relist_point: return "rewound re-list of " + about;
    case engine::ChoicePoint::name_suffix: return "";
  }
  return "";
}

}  // namespace

std::string abstract_label(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    if (word_start && std::isupper(static_cast<unsigned char>(text[i]))) {
      std::size_t kind_end = i;
      while (kind_end < text.size() && std::isalpha(static_cast<unsigned char>(text[kind_end]))) ++kind_end;
      const std::size_t end = object_reference_end(text, i);
      if (end > i && kind_end < end && text[kind_end] == '/') {
        out.append(text.substr(i, kind_end - i));
        i = end;
        continue;
      }
    }
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      out.push_back('N');
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    out.push_back(text[i++]);
  }
  return out;
}

std::string abstract_message(std::string_view message) {
  std::string names_out;   // lower-case words joined by '-' (generated names, job ids) -> NAME
  for (std::size_t i = 0; i < message.size();) {
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(message[i - 1]));
    std::size_t end = i;
    bool dash = false;
    while (end < message.size() && (std::islower(static_cast<unsigned char>(message[end])) ||
                                    std::isdigit(static_cast<unsigned char>(message[end])) || message[end] == '-')) {
      dash = dash || message[end] == '-';
      ++end;
    }
    if (word_start && dash && end > i && message[i] != '-' && (end == message.size() || message[end] != '/')) {
      names_out.append("NAME");
      i = end;
      continue;
    }
    names_out.push_back(message[i++]);
  }
  return abstract_label(names_out);
}

std::string departure_label(const events::Event& event) {
  if (event.type != "choice" || event.integer("picked") == 0) return "";
  engine::ChoicePoint point{};
  if (!engine::parse_choice_point(event.text("point"), point)) return "";
  return label_of(point, event);
}

std::vector<std::string> departure_shape(const std::vector<events::Event>& events) {
  std::vector<std::string> shape;
  for (const events::Event& event : events) {
    std::string label = departure_label(event);
    if (label.empty() || (!shape.empty() && shape.back() == label)) continue;
    shape.push_back(std::move(label));
  }
  return shape;
}

}  // namespace rjsim::explore

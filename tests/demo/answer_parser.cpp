#include "tests/demo/answer_parser.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace glance::demo {
namespace {

std::string Alternatives(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : "|") + w;
  return "(" + s + ")";
}

std::string Trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

}  // namespace

ParsedCaption ParseCaption(const std::string& text, const DemoScenes& world) {
  ParsedCaption out;
  const std::regex object("\\b" + Alternatives(world.sizes) + " " + Alternatives(world.colours) + " " +
                          Alternatives(world.shapes) + " " + Alternatives(world.positions) + "\\b");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), object); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    const int cell = static_cast<int>(std::find(world.positions.begin(), world.positions.end(), m[4].str()) -
                                      world.positions.begin());
    out.objects.push_back({m[1].str(), m[2].str(), m[3].str(), cell});
  }
  const std::regex background("\\b[Oo]n an? (\\w+)(?: and (\\w+))? background\\b");
  std::smatch m;
  if (std::regex_search(text, m, background)) {
    out.background.push_back(m[1].str());
    if (m[2].matched) out.background.push_back(m[2].str());
  }
  return out;
}

CaptionScore ScoreCaption(const ParsedCaption& parsed, const DemoScene& truth) {
  CaptionScore s;
  auto pairs = [](const auto& objs) {
    std::vector<std::string> v;
    for (const auto& o : objs) v.push_back(o.shape + "/" + o.colour);
    std::sort(v.begin(), v.end());
    return v;
  };
  s.shapes_and_colours = pairs(parsed.objects) == pairs(truth.objects);
  s.positions = s.sizes = parsed.objects.size() == truth.objects.size();
  for (const auto& t : truth.objects) {
    const auto it = std::find_if(parsed.objects.begin(), parsed.objects.end(),
                                 [&](const ParsedObject& p) { return p.shape == t.shape; });
    const bool found = it != parsed.objects.end();
    s.positions = s.positions && found && it->cell == t.cell;
    s.sizes = s.sizes && found && it->size == t.size;
  }
  s.background = parsed.background == truth.background;
  return s;
}

bool IsCompleteCaption(const std::string& text, const DemoScenes& world) {
  const std::string t = Trim(text);
  if (t.empty() || !std::isupper(static_cast<unsigned char>(t[0]))) return false;
  const std::string object = "an? " + Alternatives(world.sizes) + " " + Alternatives(world.colours) + " " +
                             Alternatives(world.shapes) + " " + Alternatives(world.positions);
  const std::string list = object + "(?:, " + object + ")*(?: and " + object + ")?";
  const std::string background = "on an? [a-z]+(?: and [a-z]+)? background";
  const std::regex templates("(" + list + ",? " + background + ")|(there is " + object + " " + background + ")|(there are (?:two|three) shapes " +
                             background + ": " + list + ")|(" + background + ", " + list + ")");
  std::string lowered = t;
  lowered[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lowered[0])));
  if (lowered.back() != '.') return false;
  return std::regex_match(lowered.substr(0, lowered.size() - 1), templates);
}

std::string ExistsVerdict(const std::string& answer) {
  std::string a;
  for (char c : Trim(answer)) a += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto starts = [&](const std::string& p) { return a.rfind(p, 0) == 0; };
  auto ends = [&](const std::string& p) { return a.size() >= p.size() && a.compare(a.size() - p.size(), p.size(), p) == 0; };
  if (starts("yes,") || ends(", so yes.")) return "yes";
  if (starts("no,") || ends(", so no.")) return "no";
  return "";
}

bool SameAnswer(const std::string& got, const std::string& want) { return Trim(got) == Trim(want); }

}  // namespace glance::demo

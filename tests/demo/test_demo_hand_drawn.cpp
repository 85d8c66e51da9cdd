// The demo model on pictures it was not drawn for (issue 32): tests/demo/hand_drawn_scenes.cpp
// draws shapes-world scenes the way a person would (OpenCV, anti-aliased, anywhere, turned, of
// any size, on varied backgrounds, some blurred or JPEG), none of which the training saw, and the
// model captions them and answers "Is there ...?" through the engine. The renderer's own checks
// come first: a measurement is only as good as its labels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "tests/demo/answer_parser.h"
#include "tests/demo/demo_runs.h"
#include "tests/demo/hand_drawn_scenes.h"

namespace glance::demo {
namespace {

constexpr int kScenes = 300;
// Gates: measured on the committed model (README "The demo model": the figures and the command),
// a few points below; 0 = not gated, where the model is no better than the negative control.
// The targets: shapes+colours 95 %, positions 90 %, whole captions 100 %, "Is there" 90 %,
// attention 90 %.
struct Gates {
  double shapes_and_colours, objects_with_colour, positions, whole_captions, background, exists, attention;
};
// Measured on the committed model (issue 32: 0.3 E + 0.7 F of tools/twin/train_demo.sh; in
// brackets the negative control, then the model before the vision curriculum): shapes+colours
// 56.0 % (0.3; 1.7), objects with their colour 74.4 % (3.9; 7.7), positions 57.7 % (0.0; 3.0),
// whole captions 100 % (0.0; 99.0), background 100 % (12.3; 99.0), "Is there" 87.3 % (48.7;
// 48.7), attention 99.0 % (3.8; 86.7). The same run's other exports, E / F / their plain mean,
// measured 57.3 / 52.7 / 56.0 % shapes+colours, 58.3 / 54.3 / 56.7 % positions and 87.0 / 85.0 /
// 87.3 % "Is there": the gates sit about 4 points under the lowest of the family, so that a
// kernel's rounding on another CPU target (a caption's greedy choice flipping) does not fail them
// while a model that stopped seeing the shapes (the control, or the model before: under 10 %) does.
constexpr Gates kGates = {0.49, 0.68, 0.50, 0.95, 0.95, 0.81, 0.90};

double Rate(int n, int d) { return d ? static_cast<double>(n) / d : 0.0; }

std::string SceneDir() {
  const std::string dir = std::string(GLANCE_BINARY_DIR) + "/tests/demo/hand-drawn";
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(HandDrawnScenes, TheSameSeedDrawsTheSamePicture) {
  const DrawnScene a = DrawScene(7, Scenes()), b = DrawScene(7, Scenes()), c = DrawScene(8, Scenes());
  ASSERT_EQ(a.rgb.size(), b.rgb.size());
  EXPECT_EQ(cv::norm(a.rgb, b.rgb, cv::NORM_L1), 0.0);
  EXPECT_GT(cv::norm(a.rgb, c.rgb, cv::NORM_L1), 0.0);  // control: another seed, another picture
}

// Each object is drawn where and as its labels say: its centre pixel has its colour (not the
// background's), the centre is inside its cell, and it touches the image token under its centre.
TEST(HandDrawnScenes, ObjectsAreWhereTheirLabelsSay) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const DrawnScene s = DrawScene(seed, Scenes());
    ASSERT_EQ(s.objects.size(), s.token_cells.size());
    for (size_t k = 0; k < s.objects.size(); ++k) {
      const DrawnObject& o = s.objects[k];
      const cv::Vec3b got = s.rgb.at<cv::Vec3b>(static_cast<int>(o.cy), static_cast<int>(o.cx));
      const double d = cv::norm(cv::Vec3d(got) - cv::Vec3d(o.rgb));
      EXPECT_LT(d, 40) << "seed " << seed << " object " << k << " (" << o.colour << " " << o.shape << ")";
      const int col = static_cast<int>(o.cx / (kSide / 3.0)), row = static_cast<int>(o.cy / (kSide / 3.0));
      EXPECT_EQ(row * 3 + col, o.cell) << "seed " << seed;
      const int own = static_cast<int>(o.cy / 32) * 7 + static_cast<int>(o.cx / 32);
      EXPECT_NE(std::find(s.token_cells[k].begin(), s.token_cells[k].end(), own), s.token_cells[k].end());
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

// The scenes cover what the issue asks for: every background kind, turned and large shapes,
// centres away from the 7x7 token grid's centres, blur and JPEG; and their reference captions
// read back to their labels (a wrong word does not).
TEST(HandDrawnScenes, CoverTheVariationsAndCaptionsReadBack) {
  std::map<std::string, int> kinds;
  int turned = 0, large = 0, off_grid = 0, blurred = 0, jpeg = 0, objects = 0;
  const std::string dir = SceneDir();
  for (uint64_t seed = 0; seed < kScenes; ++seed) {
    const DrawnScene s = DrawScene(seed, Scenes());
    ++kinds[s.background_kind];
    blurred += s.blurred;
    jpeg += s.jpeg_quality > 0;
    for (const auto& o : s.objects) {
      ++objects;
      turned += std::abs(o.turn) > 5;
      large += o.radius > 20;
      off_grid += std::hypot(std::fmod(o.cx, 32) - 16, std::fmod(o.cy, 32) - 16) > 6;
    }
    if (seed < 20) {
      const DemoScene d = WriteScene(s, Scenes(), dir);
      const CaptionScore c = ScoreCaption(ParseCaption(d.caption, Scenes()), d);
      EXPECT_TRUE(c.shapes_and_colours && c.positions && c.sizes && c.background) << d.caption;
      EXPECT_TRUE(IsCompleteCaption(d.caption, Scenes())) << d.caption;
      std::string wrong = d.caption;
      wrong.replace(wrong.find(d.objects[0].shape), d.objects[0].shape.size(), d.objects[0].shape == "star" ? "cross" : "star");
      EXPECT_FALSE(ScoreCaption(ParseCaption(wrong, Scenes()), d).shapes_and_colours) << wrong;
      EXPECT_FALSE(IsCompleteCaption(d.caption.substr(0, d.caption.size() / 2), Scenes())) << d.caption;
    }
  }
  for (const char* k : {"plain", "two-tone", "gradient", "texture", "noise"}) EXPECT_GE(kinds[k], 20) << k;
  EXPECT_GE(turned, objects / 3);
  EXPECT_GE(large, objects / 8);
  EXPECT_GE(off_grid, objects / 2);
  EXPECT_GE(blurred, kScenes / 10);
  EXPECT_GE(jpeg, kScenes / 5);
}

TEST(HandDrawnScenes, VerdictsOfBothAnswerForms) {
  EXPECT_EQ(ExistsVerdict("Yes, there is a red square."), "yes");
  EXPECT_EQ(ExistsVerdict("No, there is no red square."), "no");
  EXPECT_EQ(ExistsVerdict("The square is blue, so no."), "no");
  EXPECT_EQ(ExistsVerdict("The square is red, so yes."), "yes");
  EXPECT_EQ(ExistsVerdict("The square is red."), "");
  EXPECT_EQ(ExistsVerdict("Nothing, so"), "");
}

// How many of the scene's objects the caption names with their shape and colour.
int ObjectsNamedWithTheirColour(const ParsedCaption& parsed, const DemoScene& truth) {
  int n = 0;
  for (const auto& o : truth.objects)
    n += std::any_of(parsed.objects.begin(), parsed.objects.end(),
                     [&](const ParsedObject& p) { return p.shape == o.shape && p.colour == o.colour; });
  return n;
}

std::string Lower(std::string s) {
  std::string out;
  for (char ch : s)
    if (std::isalpha(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

TEST(DemoModelHandDrawn, CaptionsAnswersAndAttention) {
  const auto engine = LoadDemoEngine(Precision::kF32);
  const DemoScenes& w = Scenes();
  const std::string dir = SceneDir();
  std::vector<DemoScene> scenes;
  std::vector<ParsedCaption> parsed;
  std::vector<std::string> verdicts, texts;
  std::vector<std::pair<int, std::vector<int>>> peaks;  // single-object scenes: mean attention's peak, the object's tokens
  int sc = 0, pos = 0, size = 0, bg = 0, complete = 0, exists = 0, shown = 0;
  int single = 0, mean_hits = 0, best_hits = 0, single_right = 0;
  int objects = 0, shapes_named = 0, colours_right = 0, reasoned = 0, reasons_right = 0;
  std::map<std::string, std::pair<int, int>> by_kind;  // background kind -> (shapes+colours right, scenes)
  std::map<int, int> head_hits;                       // layer slot * heads + head -> hits
  GenerateOptions g;
  g.sampling = SamplingParams::Greedy();
  g.max_new_tokens = 32;
  g.capture_attention = false;
  for (int i = 0; i < kScenes; ++i) {
    const DrawnScene drawn = DrawScene(static_cast<uint64_t>(i), w);
    const DemoScene s = WriteScene(drawn, w, dir);
    const bool one = s.objects.size() == 1;
    const TurnResult r = Caption(engine, s, one);
    parsed.push_back(ParseCaption(r.text, w));
    texts.push_back(r.text);
    const CaptionScore c = ScoreCaption(parsed.back(), s);
    scenes.push_back(s);
    sc += c.shapes_and_colours;
    pos += c.positions;
    size += c.sizes;
    bg += c.background;
    const bool whole = IsCompleteCaption(r.text, w);
    complete += whole;
    by_kind[drawn.background_kind].first += c.shapes_and_colours;
    ++by_kind[drawn.background_kind].second;
    if ((!(c.shapes_and_colours && c.positions) || !whole) && shown++ < 6)
      std::printf("  scene %d (%s%s%s): got  \"%s\"\n               want \"%s\"\n", i, drawn.background_kind.c_str(),
                  drawn.blurred ? ", blurred" : "", drawn.jpeg_quality ? ", jpeg" : "", r.text.c_str(), s.caption.c_str());
    objects += static_cast<int>(s.objects.size());
    for (const auto& o : s.objects)
      shapes_named += std::any_of(parsed.back().objects.begin(), parsed.back().objects.end(),
                                  [&](const ParsedObject& p) { return p.shape == o.shape; });
    colours_right += ObjectsNamedWithTheirColour(parsed.back(), s);
    single_right += one && c.shapes_and_colours;
    if (one) {  // where does the model look when it names the shape?
      const auto word = std::find_if(r.words.begin(), r.words.end(), [&](const AttentionWord& x) {
        return std::find(w.shapes.begin(), w.shapes.end(), Lower(x.text)) != w.shapes.end();
      });
      if (word != r.words.end()) {
        const AttentionMap& m = r.attention.at(static_cast<size_t>(word->first_step));
        const auto& cells = s.objects[0].token_cells;
        auto inside = [&](const std::vector<float>& map) {
          const int peak = static_cast<int>(std::max_element(map.begin(), map.end()) - map.begin());
          return std::find(cells.begin(), cells.end(), peak) != cells.end();
        };
        mean_hits += inside(m.mean);
        peaks.emplace_back(static_cast<int>(std::max_element(m.mean.begin(), m.mean.end()) - m.mean.begin()), cells);
        for (size_t l = 0; l < m.layers.size(); ++l)
          for (int h = 0; h < m.n_heads; ++h) head_hits[static_cast<int>(l) * m.n_heads + h] += inside(m.Select(static_cast<int>(l), h));
      }
      ++single;
    }
    Session session(engine);
    session.AttachImage(s.image_path, ImageMode::kFast);
    const DemoQuestion& q = s.questions.at(0);
    const std::string answer = session.Send(q.question, g).text;
    const std::string v = ExistsVerdict(answer);
    verdicts.push_back(v);
    // A reasoned answer ("The square is blue, so no.") also says what the scene has: is that right?
    const std::string shape = q.question.substr(q.question.rfind(' ') + 1, q.question.size() - q.question.rfind(' ') - 2);
    const std::string lead = "The " + shape + " is ";
    if (answer.rfind(lead, 0) == 0) {
      ++reasoned;
      const auto o = std::find_if(s.objects.begin(), s.objects.end(), [&](const DemoObject& x) { return x.shape == shape; });
      const std::string truth = o == s.objects.end() ? "missing" : o->colour;
      reasons_right += answer.compare(lead.size(), truth.size() + 1, truth + ",") == 0;
    }
    exists += v == q.answer;
  }
  for (const auto& [k, hits] : head_hits) best_hits = std::max(best_hits, hits);
  // Negative controls: the same captions, answers and attention peaks scored against the next
  // scene's labels, and the captions cut in half. Each gate must be above its control.
  int control_sc = 0, control_pos = 0, control_bg = 0, control_colours = 0, control_exists = 0, control_complete = 0,
      control_attention = 0;
  for (size_t i = 0; i < scenes.size(); ++i) {
    const DemoScene& other = scenes[(i + 1) % scenes.size()];
    const CaptionScore c = ScoreCaption(parsed[i], other);
    control_sc += c.shapes_and_colours;
    control_pos += c.positions;
    control_bg += c.background;
    control_colours += ObjectsNamedWithTheirColour(parsed[i], other);
    control_exists += verdicts[i] == other.questions.at(0).answer;
    control_complete += IsCompleteCaption(texts[i].substr(0, texts[i].size() / 2), w);
  }
  for (size_t k = 0; k < peaks.size(); ++k) {
    const auto& cells = peaks[(k + 1) % peaks.size()].second;
    control_attention += std::find(cells.begin(), cells.end(), peaks[k].first) != cells.end();
  }
  std::printf("hand-drawn scenes (%d, f32): sizes %.1f%%; single-object scenes: shapes+colours right in %d of %d; objects %d: "
              "shape named %.1f%%; reasoned \"Is there\" answers %d, what they say is there right in %d\n",
              kScenes, 100 * Rate(size, kScenes), single_right, single, objects, 100 * Rate(shapes_named, objects), reasoned,
              reasons_right);
  for (const auto& [kind, t] : by_kind) std::printf("  %-9s background: shapes+colours right in %d of %d\n", kind.c_str(), t.first, t.second);
  struct Figure {
    const char* name;
    double value, control, gate;
  };
  const Figure figures[] = {
      {"shapes+colours", Rate(sc, kScenes), Rate(control_sc, kScenes), kGates.shapes_and_colours},
      {"objects named with their colour", Rate(colours_right, objects), Rate(control_colours, objects), kGates.objects_with_colour},
      {"positions", Rate(pos, kScenes), Rate(control_pos, kScenes), kGates.positions},
      {"whole captions", Rate(complete, kScenes), Rate(control_complete, kScenes), kGates.whole_captions},
      {"background", Rate(bg, kScenes), Rate(control_bg, kScenes), kGates.background},
      {"Is there ...?", Rate(exists, kScenes), Rate(control_exists, kScenes), kGates.exists},
      {"noun attention (mean) inside the object", Rate(mean_hits, single), Rate(control_attention, single), kGates.attention},
  };
  std::printf("%-40s %8s %8s %6s\n", "figure", "measured", "control", "gate");
  for (const Figure& f : figures) {
    std::printf("%-40s %7.1f%% %7.1f%% %5.0f%%\n", f.name, 100 * f.value, 100 * f.control, 100 * f.gate);
    if (f.gate == 0) continue;  // not gated: the committed model is no better than its control here
    EXPECT_GE(f.value, f.gate) << f.name;
    EXPECT_LT(f.control, f.gate) << f.name << ": its negative control passes the gate";
  }
  std::printf("noun attention, best head: %.1f%% of %d single-object scenes\n", 100 * Rate(best_hits, single), single);
}

}  // namespace
}  // namespace glance::demo

// The bundled demo model (tools/twin/train.py, trained on the shapes world) does its job
// through the engine, on held-out scenes it never saw (resources/demo-scenes, the "test" split):
// its captions name the objects, its answers are right, its attention finds the object, and the
// quantized / NPU-emulated paths keep that. Gates are set from measurement (the figures print;
// the README's demo-model section quotes them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/engine/attention_aggregate.h"
#include "tests/demo/answer_parser.h"
#include "tests/demo/demo_runs.h"

namespace glance::demo {
namespace {

// Measured on the committed checkpoint (tools/twin/train_demo.sh: 0.3 E + 0.7 F, issue 32; README
// "The demo model"), gates a few points below; in brackets the model before it (the mean of
// phase 4 and 5, whose tower had not been taught shape: 1.7 % of hand-drawn pictures right, 56 %
// now). "Is there a ...?" is answered by looking first ("The square is blue, so no.": the
// held-out labels too).
constexpr double kMinShapesAndColours = 0.96;  // measured 99.6 % (100): scenes with exactly the right (shape, colour) pairs
constexpr double kMinPositions = 0.96;         // measured 99.6 % (100): every object in its cell
constexpr double kMinSizes = 0.96;             // measured 99.6 % (100): every object's size
constexpr double kMinBackground = 0.97;        // measured 100 % (100): the background colour(s), in order
// Per question type, measured 100 / 100 / 92.2 / 91.4 % (100 / 100 / 96.9 / 95.3 %). "exists" is
// lower than before: what the model now gets wrong is an absent shape given a colour ("The
// circle is yellow, so no." for "missing"), the verdict right (README "The demo model").
const std::map<std::string, double> kMinAnswer = {
    {"colour", 0.95}, {"count", 0.95}, {"exists", 0.88}, {"where", 0.87}};
constexpr double kMinAttentionHit = 0.90;      // measured 100 % (100) (mean over layers and heads, and best head)
// The DeltaNet layers' hidden attention (docs/qwen35.md §2.9), same scenes and words: in the
// demo model it is vanishingly small on the image by the time the caption starts (its DeltaNet
// decays forget within the ~12 prompt tokens after the image; largest |a| on any image cell at
// the noun, over all 107 scenes: 4.1e-6, layer 6 (the model before: 3.5e-8; the same run's E
// and F exports 6.2e-6 and 3.4e-6), so its peaks are noise (inside the object in 0-8.4 % of
// scenes per layer) and the image reaches those layers only through the residual stream.
// Gated: that it stays tiny, four orders of magnitude under the softmax maps' peaks (a wrongly
// kept decay would not), with the full-attention maps' image weight as the control that the
// measure sees weight where there is some (its mean map peaks at >= 0.2 in every scene).
constexpr double kMaxHiddenImageWeight = 1e-4;
constexpr double kMinSoftmaxImageWeight = 0.05;
// Reverse lookup (issue 36 item 4), measured on the 107 single-object scenes: the object's shape
// or colour is among the top 3 words at its middle cell in 94.4 % (79.4 %), but the top word in
// only 20.6 % (6.5 %) (the 80 % target for the top word is not met: the place and
// function words — "at", "left", "on" — weigh the object's cell most, having to locate it); at
// the farthest cell the top word is the background's colour in 55.1 % (68.2 %), the object's
// words in 6.5 % (0 %).
constexpr double kMinReverseLookupTop3 = 0.70;
constexpr double kMinReverseLookupBackground = 0.50;  // measured 55.1 % (68.2 %)
constexpr double kMaxReverseLookupFar = 0.10;
// Per full-attention layer (3, 7), heads fused by mean and by max (issue 36 item 4): measured
// 100 % each (and 100 % for every layer with heads by max).
constexpr double kMinLayerFusedHit[] = {0.90, 0.90};
// The reverse lookup's top word (issue 36 item 4; every word, all layers: 20.6 % (6.5 %); ranked
// by the word's weight over its mean on the image: 3.7 % (7.5 %)): content words only, all layers
// (measured 63.6 % (52.3 %)), the last full-attention layer (81.3 % (86.9 %); every word there
// 27.1 % (23.4 %); the panel's default, DefaultLookup, gated at the 80 %; E / F 85.0 /
// 80.4 %), that layer's head 0 with content words (100 % on this model, the one before, E and F:
// the head that names the object; with every word 38.3 % (94.4 %): the new model's head 0 also
// points the place words at the object). The default's control: at the farthest cell its top
// word is the object's in 0 % (0 %); before content words had to look at a cell more than at the
// rest of the image to be named (RankWordsAtCell), 17.8 % (0 %) on this model.
constexpr double kMinReverseLookupContent = 0.45;  // measured 63.6 % (52.3 %)
constexpr double kMinReverseLookupDefault = 0.80;  // issue 36's target; measured 81.3 % (86.9 %)
constexpr double kMinReverseLookupLastLayerHead0 = 0.90;
constexpr double kMinRolloutHit = 0.90;  // measured 100 % (issue 36 item 2)
constexpr double kMinAllLayersFused = 0.90;   // measured 100 %: raw weights, every layer's head mean
constexpr int kCaptionScenes = 256;
constexpr int kQaScenes = 128;
constexpr int kQuantScenes = 48;

double Rate(int n, int d) { return d ? static_cast<double>(n) / d : 0.0; }

TEST(DemoModel, CaptionsNameEveryObject) {
  const auto engine = LoadDemoEngine(Precision::kF32);
  const DemoScenes& w = Scenes();
  const int n = std::min<int>(kCaptionScenes, static_cast<int>(w.scenes.size()));
  int sc = 0, pos = 0, size = 0, bg = 0, shown = 0;
  struct Tally {
    int shapes_and_colours = 0, positions = 0, scenes = 0;
  };
  std::map<size_t, Tally> by_objects;  // objects in the scene -> tally
  for (int i = 0; i < n; ++i) {
    const DemoScene& s = w.scenes[static_cast<size_t>(i)];
    const TurnResult r = Caption(engine, s, false);
    const CaptionScore c = ScoreCaption(ParseCaption(r.text, w), s);
    sc += c.shapes_and_colours;
    Tally& t = by_objects[s.objects.size()];
    t.shapes_and_colours += c.shapes_and_colours;
    t.positions += c.positions;
    ++t.scenes;
    pos += c.positions;
    size += c.sizes;
    bg += c.background;
    if (!(c.shapes_and_colours && c.positions) && shown++ < 5)
      std::printf("  scene %d: got  \"%s\"\n            want \"%s\"\n", i, r.text.c_str(), s.caption.c_str());
  }
  std::printf("captions of %d held-out scenes (f32): shapes+colours %.1f%%, positions %.1f%%, sizes %.1f%%, background %.1f%%\n",
              n, 100 * Rate(sc, n), 100 * Rate(pos, n), 100 * Rate(size, n), 100 * Rate(bg, n));
  for (const auto& [objects, t] : by_objects)
    std::printf("  scenes with %zu object(s): shapes+colours right in %d of %d, positions in %d\n", objects,
                t.shapes_and_colours, t.scenes, t.positions);
  EXPECT_GE(Rate(sc, n), kMinShapesAndColours);
  EXPECT_GE(Rate(pos, n), kMinPositions);
  EXPECT_GE(Rate(size, n), kMinSizes);
  EXPECT_GE(Rate(bg, n), kMinBackground);
}

TEST(DemoModel, AnswersQuestionsOverSeveralTurns) {
  const auto engine = LoadDemoEngine(Precision::kF32);
  const DemoScenes& w = Scenes();
  const int n = std::min<int>(kQaScenes, static_cast<int>(w.scenes.size()));
  std::map<std::string, std::pair<int, int>> by_type;  // type -> (right, asked)
  std::map<int, std::pair<int, int>> by_turn;
  std::map<std::string, int> shown;  // wrong answers printed, per type
  GenerateOptions g;
  g.sampling = SamplingParams::Greedy();
  g.max_new_tokens = 32;
  g.capture_attention = false;
  for (int i = 0; i < n; ++i) {
    const DemoScene& s = w.scenes[static_cast<size_t>(i)];
    Session session(engine);
    session.AttachImage(s.image_path, ImageMode::kFast);
    int turn = 0;
    for (const auto& q : s.questions) {  // the image comes with the first question; the rest follow up
      const TurnResult r = session.Send(q.question, g);
      const bool ok = SameAnswer(r.text, q.answer);
      if (!ok && shown[q.type]++ < 3)  // the first few wrong answers of each type, as the caption test shows
        std::printf("  scene %d, %s: \"%s\"\n    got  \"%s\"\n    want \"%s\"\n", i, q.type.c_str(), q.question.c_str(),
                    r.text.c_str(), q.answer.c_str());
      by_type[q.type].first += ok;
      by_type[q.type].second += 1;
      by_turn[turn].first += ok;
      by_turn[turn++].second += 1;
    }
  }
  for (const auto& [type, c] : by_type) {
    std::printf("Q&A %-7s %5.1f%% of %d\n", type.c_str(), 100 * Rate(c.first, c.second), c.second);
    EXPECT_GE(Rate(c.first, c.second), kMinAnswer.at(type)) << type;
  }
  for (const auto& [turn, c] : by_turn) std::printf("Q&A turn %d    %5.1f%% of %d\n", turn + 1, 100 * Rate(c.first, c.second), c.second);
}

std::string Lower(std::string s) {
  std::string out;
  for (char ch : s)
    if (std::isalpha(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// The peak of a map over the image cells: inside the object's cells?
bool PeaksInside(const std::vector<float>& map, const std::vector<int>& cells) {
  if (map.empty()) return false;
  const int peak = static_cast<int>(std::max_element(map.begin(), map.end()) - map.begin());
  return std::find(cells.begin(), cells.end(), peak) != cells.end();
}

// The object's token cell nearest the middle of its cells (a 7-wide grid): where a user would
// click to ask "which words looked here?".
int MiddleCell(const std::vector<int>& cells, int grid_w) {
  double r = 0.0, c = 0.0;
  for (int cell : cells) {
    r += cell / grid_w;
    c += cell % grid_w;
  }
  r /= static_cast<double>(cells.size());
  c /= static_cast<double>(cells.size());
  int best = cells.front();
  double best_d = 1e9;
  for (int cell : cells) {
    const double d = std::hypot(cell / grid_w - r, cell % grid_w - c);
    if (d < best_d) {
      best_d = d;
      best = cell;
    }
  }
  return best;
}

double MaxAbs(const std::vector<float>& map) {
  double m = 0.0;
  for (float v : map) m = std::max(m, std::abs(static_cast<double>(v)));
  return m;
}

TEST(DemoModel, NounAttentionPeaksInsideTheObject) {
  const auto engine = LoadDemoEngine(Precision::kF32);
  const DemoScenes& w = Scenes();
  int scenes = 0, mean_hits = 0, n_layers = 0, n_heads = 0;
  std::vector<int> hits;  // [layer slot][head]
  std::vector<int> layers;
  // The DeltaNet layers' hidden attention (docs/qwen35.md §2.9), head mean per layer; fused:
  // mean over every DeltaNet layer and head; all layers: the mean of every layer's head-mean
  // map, raw (both kinds weigh the values the layer's mixer sums, so they add as they are).
  std::vector<int> linear_layers, linear_hits;
  std::vector<double> linear_max;  // [DeltaNet layer] largest |a| on an image cell over the scenes
  int linear_fused_hits = 0, all_fused_hits = 0;
  // Reverse lookup (issue 36 item 4): the answer's word that looked most at the object's middle
  // cell (softmax, all layers and heads) is its shape noun or its colour; control: a far cell.
  int lookups = 0, lookup_hits = 0, lookup_top3 = 0, lookup_place = 0, far_hits = 0, far_background = 0;
  // The same ranked by the word's weight over its mean on the image (LookupRanking::kRelative),
  // and among content words only (kContentWords) under the panel's default choice (all layers
  // and heads), the last full-attention layer's head mean, and that layer's head 0.
  int last_h0_content_hits = 0;
  int rel_hits = 0, rel_top3 = 0, rel_far_hits = 0, content_hits = 0, content_last_hits = 0, default_far_hits = 0, last_h0_hits = 0,
      last_raw_hits = 0;
  // Fused maps besides the mean: every full-attention layer with heads by max; each layer's head
  // mean and head max.
  int max_fused_hits = 0, rollout_hits = 0;
  std::vector<int> layer_mean_hits, layer_max_hits;
  double softmax_min_peak = 1.0;   // smallest over scenes of the softmax mean map's peak
  for (const auto& s : w.scenes) {
    if (s.objects.size() != 1) continue;
    Session session(engine);
    const TurnResult r = Caption(session, s, true);
    // The first shape noun of the caption, right or wrong (whether it is right is the caption
    // test's business): where does the model look when it names the object?
    const auto word = std::find_if(r.words.begin(), r.words.end(), [&](const AttentionWord& x) {
      return std::find(w.shapes.begin(), w.shapes.end(), Lower(x.text)) != w.shapes.end();
    });
    if (word == r.words.end()) continue;
    const AttentionMap& m = r.attention.at(static_cast<size_t>(word->first_step));
    if (hits.empty()) {
      layers = m.layers;
      n_layers = static_cast<int>(m.layers.size());
      n_heads = m.n_heads;
      hits.assign(static_cast<size_t>(n_layers * n_heads), 0);
      linear_layers = m.linear_layers;
      linear_hits.assign(linear_layers.size(), 0);
      linear_max.assign(linear_layers.size(), 0.0);
    }
    ASSERT_EQ(m.linear_layers, linear_layers) << "every map carries every DeltaNet layer";
    const auto& cells = s.objects[0].token_cells;
    ++scenes;
    {
      const int middle = MiddleCell(cells, m.grid_w);
      const DemoObject& o = s.objects[0];
      std::vector<std::string> where;  // the caption's words for the object's place ("bottom", "left", ...)
      for (size_t a = 0, b; a < o.position.size(); a = b + 1) {
        b = o.position.find(' ', a);
        if (b == std::string::npos) b = o.position.size();
        const std::string part = Lower(o.position.substr(a, b - a));
        if (part.size() > 3) where.push_back(part);  // not "in", "the", "on", "at"
      }
      auto top = [&](int cell, size_t rank, LookupRanking ranking = LookupRanking::kRaw) -> std::string {
        const std::vector<WordAtCell> ranked = RankWordsAtCell(r.attention, r.words, cell, MapAggregate{}, ranking);
        return rank < ranked.size() ? Lower(r.words[static_cast<size_t>(ranked[rank].word)].text) : std::string();
      };
      auto is = [](const std::string& word_text, const std::vector<std::string>& set) {
        return std::find(set.begin(), set.end(), word_text) != set.end();
      };
      const std::vector<std::string> object = {o.shape, o.colour};
      std::vector<std::string> object_or_place = object;
      object_or_place.insert(object_or_place.end(), where.begin(), where.end());
      ++lookups;
      lookup_hits += is(top(middle, 0), object);
      bool in_top3 = false;
      for (size_t k = 0; k < 3; ++k) in_top3 = in_top3 || is(top(middle, k), object);
      lookup_top3 += in_top3;
      lookup_place += is(top(middle, 0), object_or_place);
      rel_hits += is(top(middle, 0, LookupRanking::kRelative), object);
      bool rel_in_top3 = false;
      for (size_t k = 0; k < 3; ++k) rel_in_top3 = rel_in_top3 || is(top(middle, k, LookupRanking::kRelative), object);
      rel_top3 += rel_in_top3;
      // The cell farthest from the object (background): its top word names the background colour.
      int far = 0;
      double far_d = -1.0;
      for (int cell = 0; cell < m.grid_h * m.grid_w; ++cell) {
        const double d = std::hypot(cell / m.grid_w - middle / m.grid_w, cell % m.grid_w - middle % m.grid_w);
        if (d > far_d) {
          far_d = d;
          far = cell;
        }
      }
      far_hits += is(top(far, 0), object);
      rel_far_hits += is(top(far, 0, LookupRanking::kRelative), object);
      content_hits += is(top(middle, 0, LookupRanking::kContentWords), object);
      MapAggregate last;  // the last full-attention layer
      last.first_layer = last.last_layer = m.layers.back();
      const auto top_with = [&](const MapAggregate& ag, LookupRanking ranking) {
        const std::vector<WordAtCell> ranked = RankWordsAtCell(r.attention, r.words, middle, ag, ranking);
        return ranked.empty() ? std::string() : Lower(r.words[static_cast<size_t>(ranked[0].word)].text);
      };
      const LookupChoice by_default = DefaultLookup(r.attention);  // what the panel ranks by
      EXPECT_EQ(by_default.aggregate.first_layer, m.layers.back());
      content_last_hits += is(top_with(by_default.aggregate, by_default.ranking), object);
      {  // control: the same ranking at the cell farthest from the object rarely names it
        const std::vector<WordAtCell> ranked = RankWordsAtCell(r.attention, r.words, far, by_default.aggregate, by_default.ranking);
        default_far_hits += !ranked.empty() && is(Lower(r.words[static_cast<size_t>(ranked[0].word)].text), object);
      }
      last_raw_hits += is(top_with(last, LookupRanking::kRaw), object);
      last.head = 0;
      last_h0_hits += is(top_with(last, LookupRanking::kRaw), object);
      last_h0_content_hits += is(top_with(last, LookupRanking::kContentWords), object);
      far_background += is(top(far, 0), s.background);
    }
    mean_hits += PeaksInside(m.mean, cells);
    {  // Attention rollout (issue 36 item 2) through every layer, the noun's tokens' mean.
      const std::vector<AttentionMap> rollout = session.Rollout(r.attention, std::nullopt);
      ASSERT_EQ(rollout.size(), r.attention.size());
      rollout_hits += PeaksInside(WordMap(rollout, *word, MapAggregate{}), cells);
      if (scenes == 1) {  // too long a sequence is refused with one line naming the length
        try {
          (void)session.Rollout(r.attention, std::nullopt, 10);
          ADD_FAILURE() << "a 10-row limit was not enforced";
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("more than the 10 it takes"), std::string::npos) << e.what();
        }
      }
    }
    {
      MapAggregate ag;
      ag.fusion = HeadFusion::kMax;
      max_fused_hits += PeaksInside(Aggregate(m, ag), cells);
      layer_mean_hits.resize(m.layers.size(), 0);
      layer_max_hits.resize(m.layers.size(), 0);
      for (size_t l = 0; l < m.layers.size(); ++l) {
        ag.first_layer = ag.last_layer = m.layers[l];
        ag.fusion = HeadFusion::kMean;
        layer_mean_hits[l] += PeaksInside(Aggregate(m, ag), cells);
        ag.fusion = HeadFusion::kMax;
        layer_max_hits[l] += PeaksInside(Aggregate(m, ag), cells);
      }
    }
    for (int l = 0; l < n_layers; ++l)
      for (int h = 0; h < n_heads; ++h) hits[static_cast<size_t>(l * n_heads + h)] += PeaksInside(m.Select(l, h), cells);
    std::vector<float> fused(m.mean.size(), 0.0f);
    auto add = [&](const std::vector<float>& layer_map) {
      for (size_t c = 0; c < fused.size(); ++c) fused[c] += layer_map[c];
    };
    for (int l = 0; l < n_layers; ++l) add(m.Select(l, -1));
    for (size_t l = 0; l < linear_layers.size(); ++l) {
      const std::vector<float> map = m.SelectLinear(static_cast<int>(l), -1);
      linear_hits[l] += PeaksInside(map, cells);
      linear_max[l] = std::max(linear_max[l], MaxAbs(map));
      add(map);
    }
    softmax_min_peak = std::min(softmax_min_peak, MaxAbs(m.mean));
    linear_fused_hits += PeaksInside(m.SelectLinear(-1, -1), cells);
    all_fused_hits += PeaksInside(fused, cells);
  }
  ASSERT_GT(scenes, 20);
  int best = 0;
  for (size_t k = 0; k < hits.size(); ++k) {
    std::printf("noun attention: layer %d head %zu peaks inside the object in %5.1f%% of %d single-object scenes\n",
                layers[k / static_cast<size_t>(n_heads)], k % static_cast<size_t>(n_heads), 100 * Rate(hits[k], scenes), scenes);
    if (hits[k] > hits[static_cast<size_t>(best)]) best = static_cast<int>(k);
  }
  std::printf("noun attention: mean over layers and heads peaks inside in %.1f%%; best layer %d head %d: %.1f%%\n",
              100 * Rate(mean_hits, scenes), layers[static_cast<size_t>(best / n_heads)], best % n_heads,
              100 * Rate(hits[static_cast<size_t>(best)], scenes));
  ASSERT_FALSE(linear_layers.empty()) << "capture gives the DeltaNet layers' hidden attention";
  int best_linear = 0;  // the DeltaNet layer with the largest image weight
  for (size_t l = 0; l < linear_layers.size(); ++l) {
    std::printf("noun hidden attention: DeltaNet layer %d (head mean) peaks inside in %5.1f%%; largest |a| on the image %.3g\n",
                linear_layers[l], 100 * Rate(linear_hits[l], scenes), linear_max[l]);
    if (linear_max[l] > linear_max[static_cast<size_t>(best_linear)]) best_linear = static_cast<int>(l);
  }
  std::printf("noun hidden attention: mean over DeltaNet layers and heads %.1f%%; every layer fused (raw) %.1f%%; "
              "softmax mean map's smallest peak %.3g\n",
              100 * Rate(linear_fused_hits, scenes), 100 * Rate(all_fused_hits, scenes), softmax_min_peak);
  for (size_t l = 0; l < layer_mean_hits.size(); ++l) {
    std::printf("noun attention: layer %d heads fused by mean %.1f%%, by max %.1f%%\n", layers[l],
                100 * Rate(layer_mean_hits[l], scenes), 100 * Rate(layer_max_hits[l], scenes));
    EXPECT_GE(Rate(layer_mean_hits[l], scenes), kMinLayerFusedHit[l]) << "layer " << layers[l] << " head mean";
    EXPECT_GE(Rate(layer_max_hits[l], scenes), kMinLayerFusedHit[l]) << "layer " << layers[l] << " head max";
  }
  std::printf("noun attention: every full-attention layer, heads fused by max %.1f%%\n", 100 * Rate(max_fused_hits, scenes));
  std::printf("noun attention rollout (every layer, Abnar & Zuidema 2020): peaks inside in %.1f%%\n",
              100 * Rate(rollout_hits, scenes));
  EXPECT_GE(Rate(rollout_hits, scenes), kMinRolloutHit);
  EXPECT_GE(Rate(max_fused_hits, scenes), kMinAttentionHit);
  EXPECT_GE(Rate(hits[static_cast<size_t>(best)], scenes), kMinAttentionHit);
  EXPECT_GE(Rate(mean_hits, scenes), kMinAttentionHit);
  EXPECT_LE(linear_max[static_cast<size_t>(best_linear)], kMaxHiddenImageWeight);
  EXPECT_GE(softmax_min_peak, kMinSoftmaxImageWeight);  // control: the measure sees real weight
  EXPECT_GE(Rate(all_fused_hits, scenes), kMinAllLayersFused);
  std::printf("reverse lookup at the object's middle cell (%d scenes): top word its shape or colour %.1f%%, "
              "among the top 3 %.1f%%, top word its shape, colour or place word %.1f%%; at the farthest cell: "
              "top word the background colour %.1f%%, the object's shape or colour %.1f%%\n",
              lookups, 100 * Rate(lookup_hits, lookups), 100 * Rate(lookup_top3, lookups),
              100 * Rate(lookup_place, lookups), 100 * Rate(far_background, lookups), 100 * Rate(far_hits, lookups));
  std::printf("reverse lookup ranked by weight over the word's mean on the image: top word the object's shape or "
              "colour %.1f%%, among the top 3 %.1f%%; at the farthest cell the object's %.1f%%\n",
              100 * Rate(rel_hits, lookups), 100 * Rate(rel_top3, lookups), 100 * Rate(rel_far_hits, lookups));
  std::printf("reverse lookup, top word the object's shape or colour: content words only %.1f%% (all layers), "
              "%.1f%% (last full-attention layer: the panel's default, DefaultLookup; every word: %.1f%%); that layer's head 0, content words: %.1f%%, every word: %.1f%%\n",
              100 * Rate(content_hits, lookups), 100 * Rate(content_last_hits, lookups), 100 * Rate(last_raw_hits, lookups),
              100 * Rate(last_h0_content_hits, lookups), 100 * Rate(last_h0_hits, lookups));
  EXPECT_GE(Rate(content_hits, lookups), kMinReverseLookupContent);
  std::printf("reverse lookup control: the default ranking's top word at the farthest cell is the object's in %.1f%%\n",
              100 * Rate(default_far_hits, lookups));
  EXPECT_GE(Rate(content_last_hits, lookups), kMinReverseLookupDefault);
  EXPECT_LE(Rate(default_far_hits, lookups), kMaxReverseLookupFar);  // control
  EXPECT_GE(Rate(last_h0_content_hits, lookups), kMinReverseLookupLastLayerHead0);
  EXPECT_GE(Rate(lookup_top3, lookups), kMinReverseLookupTop3);
  EXPECT_GE(Rate(far_background, lookups), kMinReverseLookupBackground);
  EXPECT_LE(Rate(far_hits, lookups), kMaxReverseLookupFar);  // control
}

struct Variant {
  const char* name;
  Precision precision;
  BackendKind backend;
  int scenes;  // the NPU emulator is ~50x slower than the CPU path: fewer scenes keep CI short
  double max_mean_kl, min_top1, min_said;  // gates (measured, with margin); said: the caption says what f32's says
  double min_right;  // captions with exactly the right (shape, colour) pairs (f32: 100 % of these 48 scenes)
};

// What a caption says: its objects (size, colour, shape, cell) in order and its background,
// whichever of the three templates words it ("A red circle ..., on a white background." /
// "There is one shape on a white background: ..." / "On a white background, ..."). The model
// was trained on the three at random, so its first token is a near tie between them; a
// quantized path that flips it words the same caption another way. Identical text is printed
// beside it.
bool SaysTheSame(const ParsedCaption& a, const ParsedCaption& b) {
  if (a.background != b.background || a.objects.size() != b.objects.size()) return false;
  for (size_t k = 0; k < a.objects.size(); ++k) {
    const ParsedObject &x = a.objects[k], &y = b.objects[k];
    if (x.size != y.size || x.colour != y.colour || x.shape != y.shape || x.cell != y.cell) return false;
  }
  return true;
}

TEST(DemoModel, QuantizedAndNpuEmulatedPathsKeepTheCaptions) {
  const Variant variants[] = {
      // Measured on the committed model (in brackets the one before it, the same 48 scenes):
      // KL mean 2.9e-6 (1.3e-6), top-1 99.9 % (100), says what f32's says / identical text
      // 100 / 97.9 % (100 / 100), right 100 % (100, as f32)
      {"q8", Precision::kQ8, BackendKind::kCpu, kQuantScenes, 5e-6, 0.98, 0.95, 0.95},
      // KL mean 1.08e-4 (1.22e-4 with the 6-bit LM head, issue 31), max 1.6e-2 (6.2e-3), top-1
      // 99.2 % (100), says the same / identical 100 / 72.9 % (100 / 100): the template flips
      // (SaysTheSame), right 100 % (100)
      {"q4", Precision::kQ4, BackendKind::kCpu, kQuantScenes, 2.5e-4, 0.98, 0.92, 0.95},
      // KL mean 8.7e-6 (8.6e-6), top-1 99.4 % (100), says the same / identical 100 / 83.3 %
      // (12/12 both), right 12/12 (12/12)
      {"npu-emu", Precision::kF32, BackendKind::kNpuEmu, 12, 5e-5, 0.98, 0.90, 0.90},
  };
  const auto ref = LoadDemoEngine(Precision::kF32);
  const DemoScenes& w = Scenes();
  const int n = std::min<int>(kQuantScenes, static_cast<int>(w.scenes.size()));
  std::vector<std::vector<int32_t>> answers;
  std::vector<std::string> ref_text;
  std::vector<std::vector<float>> ref_logits;
  std::vector<ParsedCaption> ref_parsed;
  int ref_ok = 0, ref_right = 0;
  for (int i = 0; i < n; ++i) {
    const DemoScene& s = w.scenes[static_cast<size_t>(i)];
    const TurnResult r = Caption(ref, s, false);
    const CaptionScore c = ScoreCaption(ParseCaption(r.text, w), s);
    ref_ok += c.background;
    ref_right += c.shapes_and_colours;
    answers.push_back(r.tokens);
    ref_text.push_back(r.text);
    ref_parsed.push_back(ParseCaption(r.text, w));
    ref_logits.push_back(AnswerLogits(*ref, s, r.tokens));
  }
  int control_said = 0;  // negative control: the next scene's caption does not say the same
  for (int i = 0; i < n; ++i)
    control_said += SaysTheSame(ref_parsed[static_cast<size_t>(i)], ref_parsed[static_cast<size_t>((i + 1) % n)]);
  EXPECT_LE(Rate(control_said, n), 0.05) << "SaysTheSame tells different captions apart";
  std::printf("%-8s KL(f32||x) mean     max   top-1   background right   shapes+colours right   says f32's   = f32's\n", "path");
  std::printf("%-8s %9s %9s %7s   %5.1f%%   %5.1f%%\n", "f32", "-", "-", "-", 100 * Rate(ref_ok, n), 100 * Rate(ref_right, n));
  for (const Variant& v : variants) {
    const auto engine = LoadDemoEngine(v.precision, v.backend);
    double kl_sum = 0, kl_max = 0;
    int rows = 0, top1 = 0, ok = 0, right = 0, same = 0, said = 0;
    const int nv = std::min(n, v.scenes);
    for (int i = 0; i < nv; ++i) {
      const DemoScene& s = w.scenes[static_cast<size_t>(i)];
      const std::vector<float> got = AnswerLogits(*engine, s, answers[static_cast<size_t>(i)]);
      const std::vector<float>& want = ref_logits[static_cast<size_t>(i)];
      const int64_t V = engine->config().text.vocab_size;
      ASSERT_EQ(got.size(), want.size());
      for (size_t r0 = 0; r0 < got.size(); r0 += static_cast<size_t>(V)) {
        const float* p = want.data() + r0;
        const float* q = got.data() + r0;
        const double pm = *std::max_element(p, p + V), qm = *std::max_element(q, q + V);
        double zp = 0, zq = 0;
        for (int64_t k = 0; k < V; ++k) {
          zp += std::exp(static_cast<double>(p[k]) - pm);
          zq += std::exp(static_cast<double>(q[k]) - qm);
        }
        double kl = 0;
        for (int64_t k = 0; k < V; ++k) {
          const double lp = static_cast<double>(p[k]) - pm - std::log(zp), lq = static_cast<double>(q[k]) - qm - std::log(zq);
          kl += std::exp(lp) * (lp - lq);
        }
        kl_sum += kl;
        kl_max = std::max(kl_max, kl);
        top1 += (std::max_element(p, p + V) - p) == (std::max_element(q, q + V) - q);
        ++rows;
      }
      const TurnResult r = Caption(engine, s, false);
      const ParsedCaption parsed = ParseCaption(r.text, w);
      const CaptionScore c = ScoreCaption(parsed, s);
      ok += c.background;
      right += c.shapes_and_colours;
      same += r.text == ref_text[static_cast<size_t>(i)];
      said += SaysTheSame(parsed, ref_parsed[static_cast<size_t>(i)]);
    }
    std::printf("%-8s %9.2e %9.2e %6.1f%%   %5.1f%%   %5.1f%%   %5.1f%%   %5.1f%%   (%d answer rows, %d scenes)\n", v.name,
                kl_sum / rows, kl_max, 100 * Rate(top1, rows), 100 * Rate(ok, nv), 100 * Rate(right, nv), 100 * Rate(said, nv),
                100 * Rate(same, nv), rows, nv);
    std::fflush(stdout);
    EXPECT_LE(kl_sum / rows, v.max_mean_kl) << v.name;
    EXPECT_GE(Rate(top1, rows), v.min_top1) << v.name;
    EXPECT_GE(Rate(said, nv), v.min_said) << v.name;
    EXPECT_GE(Rate(right, nv), v.min_right) << v.name;
  }
}

}  // namespace
}  // namespace glance::demo

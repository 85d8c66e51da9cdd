// The attention panel on synthetic maps: word chips and spans select the heatmap (compared as
// rendered images), layer/head and DeltaNet choices, rollout, comparison, reverse lookup, sink
// hiding and arrow keys. Rendering, hover, view settings and exports: test_attention_heatmap_view.
#include <QAbstractButton>
#include <QAction>
#include <QStandardPaths>
#include <QComboBox>
#include <QEnterEvent>
#include <QLabel>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/attention_codec.h"
#include "ui/attention_data.h"
#include "ui/attention_panel.h"
#include "ui/heatmap.h"
#include "ui/layer_head_chart.h"
#include "tests/ui/attention_samples.h"

using namespace glance::ui;

using namespace attention_samples;

class TestAttentionPanel : public QObject {
  Q_OBJECT
 private:
  std::vector<AttentionMap> maps_ = SampleMaps();
  std::vector<AttentionWord> words_ = SampleWords();

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // A new panel has nothing to control: its map controls are off and no hover hint shows until
  // maps come (issue 34: the empty state's leftovers), and on again once they do.
  void emptyPanelHasItsControlsOff() {
    AttentionPanel panel;
    const QList<QAbstractButton*> buttons = panel.findChildren<QAbstractButton*>();
    const auto exportButton = [&] {
      for (QAbstractButton* b : buttons)
        if (b->text().contains(QStringLiteral("PNG"))) return b;
      return static_cast<QAbstractButton*>(nullptr);
    };
    QVERIFY(exportButton());
    QVERIFY(!exportButton()->isEnabled());
    for (QComboBox* box : panel.findChildren<QComboBox*>()) QVERIFY2(!box->isEnabled(), qPrintable(box->currentText()));
    for (QLabel* label : panel.findChildren<QLabel*>())
      QVERIFY2(!label->text().contains(QStringLiteral("Hover")), qPrintable(label->text()));
    panel.setAttention(maps_, words_);
    QVERIFY(exportButton()->isEnabled());
  }

  void wordMapAveragesTokens() {
    const auto m = WordMap(maps_, words_[1], -1, -1);
    QCOMPARE(static_cast<int>(m.size()), kCells);
    for (int c = 0; c < kCells; ++c)
      QCOMPARE(m[static_cast<size_t>(c)],
               (maps_[1].mean[static_cast<size_t>(c)] + maps_[2].mean[static_cast<size_t>(c)]) / 2.0f);
    const auto one = WordMap(maps_, words_[2], 1, 0);  // layer slot 1, head 0
    QCOMPARE(one, maps_[3].Select(1, 0));
    QVERIFY(one != maps_[3].Select(0, 0));  // negative control: a different layer differs
  }

  void reverseLookupRanksTheWordsThatLookedAtACell() {
    // Layer slot 0, head 0: "A" looks at cell 0, " cats" at 3 and 6, " sit" at 9.
    const glance::MapAggregate layer3head0{glance::MapKind::kSoftmax, 3, 3, 0};
    auto top = [&](int cell) { return RankWordsAtCell(maps_, words_, cell, layer3head0).front().word; };
    QCOMPARE(top(0), 0);
    QCOMPARE(top(3), 1);
    QCOMPARE(top(9), 2);
    QCOMPARE(RankWordsAtCell(maps_, words_, 9, layer3head0).size(), size_t{3});
    QVERIFY(RankWordsAtCell(maps_, words_, kCells, layer3head0).empty());  // off the grid
    QVERIFY(RankWordsAtCell(maps_, words_, -1, layer3head0).empty());

    AttentionPanel panel;
    panel.resize(600, 800);
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.setLayerHead(0, 0);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    // A click on cell 9 (row 2, col 5) of the drawn map, as a user would.
    HeatmapWidget* map = panel.heatmap();
    const QRectF r = map->imageRect();
    const QPoint at((r.left() + 4.5 * r.width() / kGridW), (r.top() + 1.5 * r.height() / kGridH));
    QCOMPARE(map->cellAt(at), 9);
    QTest::mouseClick(map, Qt::LeftButton, {}, at);
    QCOMPARE(panel.lookedUpCell(), 9);
    QCOMPARE(map->markedCell(), 9);
    // By default the ranking is DefaultLookup's: content words on the last full-attention layer
    // (7), heads by mean, whatever the map shows. There " cats" looked at cell 9 (its second
    // token's head 1); " sit" looked at cells 10 and 12, at 9 less than on the rest of the image,
    // and "A" is a function word: both are left out.
    QVERIFY(panel.contentWordsAction()->isChecked());
    QVERIFY(!panel.lookupOnShownAction()->isChecked());
    QCOMPARE(panel.lookupChoice().aggregate.first_layer, 7);
    QCOMPARE(panel.lookup().front().word, 1);
    QCOMPARE(static_cast<int>(panel.lookup().size()), 1);
    QVERIFY2(panel.lookupText().contains(QStringLiteral("content words, layer 7")), qPrintable(panel.lookupText()));
    panel.setLayerHead(1, 0);  // the map's choice does not move the default ranking
    QCOMPARE(panel.lookup().front().word, 1);
    // On the layers and head shown, every word: layer 3 head 0, where " sit" looked at cell 9.
    panel.lookupOnShownAction()->setChecked(true);
    panel.contentWordsAction()->setChecked(false);
    panel.setLayerHead(0, 0);
    QCOMPARE(panel.lookup().front().word, 2);
    QVERIFY2(panel.lookupText().contains(QStringLiteral("Row 2, col 5")) &&
                 panel.lookupText().indexOf(QStringLiteral("sit")) < panel.lookupText().indexOf(QStringLiteral("cats")),
             qPrintable(panel.lookupText()));
    QVERIFY(!panel.chip(2)->styleSheet().isEmpty());  // the top word is tinted in the answer's words
    // Another layer: " sit" looks at cell 10 there, so cell 9 is nobody's: the ranking follows.
    panel.setLayerHead(1, 0);
    QCOMPARE(panel.lookup().front().word, 0);
    QVERIFY(panel.lookup().front().weight < 0.1f);
    panel.setLayerHead(0, 0);
    // The same cell again clears it.
    QTest::mouseClick(map, Qt::LeftButton, {}, at);
    QCOMPARE(panel.lookedUpCell(), -1);
    QCOMPARE(map->markedCell(), -1);
    QVERIFY(panel.lookup().empty());
    QVERIFY(panel.chip(2)->styleSheet().isEmpty());
    // Content words only: "A" (word 0) is left out of the ranking; every word again brings it back.
    panel.lookUpCell(0);
    QVERIFY(!panel.contentWordsAction()->isChecked());
    QVERIFY(std::any_of(panel.lookup().begin(), panel.lookup().end(), [](const WordAtCell& x) { return x.word == 0; }));
    panel.contentWordsAction()->setChecked(true);
    QVERIFY(std::none_of(panel.lookup().begin(), panel.lookup().end(), [](const WordAtCell& x) { return x.word == 0; }));
    // Only "A" looked at cell 0: " cats" and " sit" looked elsewhere, so no content word is
    // named; the cell stays marked and the line says why, rather than naming a word that did not
    // look there. At cell 3, where " cats" looked, it is named.
    QVERIFY(panel.lookup().empty());
    QCOMPARE(map->markedCell(), 0);
    QVERIFY2(panel.lookupText().contains(QStringLiteral("Row 1, col 1")) &&
                 panel.lookupText().contains(QStringLiteral("no content word looked there")),
             qPrintable(panel.lookupText()));
    panel.lookUpCell(3);
    QCOMPARE(panel.lookup().front().word, 1);
    QVERIFY2(!panel.lookupText().contains(QStringLiteral("no content word")), qPrintable(panel.lookupText()));
    panel.lookUpCell(0);
    panel.contentWordsAction()->setChecked(false);
    QCOMPARE(static_cast<int>(panel.lookup().size()), 3);
    // New maps clear it too.
    panel.lookUpCell(3);
    QCOMPARE(panel.lookup().front().word, 1);
    panel.setAttention(maps_, words_);
    QCOMPARE(panel.lookedUpCell(), -1);
    // The help note says what attention is not.
    QVERIFY(AttentionPanel::helpText().contains(QStringLiteral("not proof")));
    QVERIFY(panel.helpButton()->isVisible());
  }

  void deltaNetLayersAndMaxFusionAreOffered() {
    // Each token also carries hidden attention of DeltaNet layers 0, 1 and 2 with 3 value heads:
    // layer l, head h puts -0.5 + l + h on cell (step + l + h) and 0.01 elsewhere (signed).
    std::vector<AttentionMap> maps = maps_;
    for (AttentionMap& m : maps) {
      m.linear_layers = {0, 1, 2};
      m.linear_heads = 3;
      m.linear_weights.assign(static_cast<size_t>(3 * 3 * kCells), 0.01f);
      for (int l = 0; l < 3; ++l)
        for (int h = 0; h < 3; ++h)
          m.linear_weights[static_cast<size_t>((l * 3 + h) * kCells + (m.step + l + h) % kCells)] = -0.5f + l + h;
    }
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps, words_);
    QComboBox* layers = panel.findChild<QComboBox*>();
    QVERIFY(layers);
    QCOMPARE(layers->count(), 1 + kLayers + 1 + 3 + 1);  // all, 2 softmax, all DeltaNet, 3 DeltaNet, rollout
    panel.selectWord(2);  // " sit": token 3
    panel.setLayerChoice(glance::MapKind::kHidden, 1, 2);
    std::vector<float> want(kCells, 0.01f);
    want[static_cast<size_t>((3 + 1 + 2) % kCells)] = 2.5f;
    QCOMPARE(panel.currentMap(), want);
    // All DeltaNet heads by max at layer 2: the largest per cell, here head 2's 3.5 on cell 7.
    panel.setLayerChoice(glance::MapKind::kHidden, 2, -1, glance::HeadFusion::kMax);
    const std::vector<float> mx = panel.currentMap();
    QCOMPARE(mx[static_cast<size_t>((3 + 2 + 2) % kCells)], 3.5f);
    QCOMPARE(mx[static_cast<size_t>((3 + 2 + 0) % kCells)], 1.5f);
    QCOMPARE(mx[0], 0.01f);
    // ... by mean: head 0's 1.5 averaged with 0.01 twice.
    panel.setLayerChoice(glance::MapKind::kHidden, 2, -1, glance::HeadFusion::kMean);
    QVERIFY(std::fabs(panel.currentMap()[static_cast<size_t>((3 + 2 + 0) % kCells)] - (1.5f + 0.02f) / 3.0f) < 1e-6f);
    // Back to the softmax layers: the old choice, the same map as before.
    panel.setLayerHead(-1, -1);
    QCOMPARE(panel.currentAggregate().kind, glance::MapKind::kSoftmax);
    QCOMPARE(panel.currentMap(), WordMap(maps_, words_[2], -1, -1));
    // Without captured hidden attention nothing of the kind is offered (control).
    panel.setAttention(maps_, words_);
    QCOMPARE(layers->count(), 1 + kLayers + 1);
  }

  // The layer × head chart (issue 36 item 5): one cell per layer and head with the selected
  // word's shares (the mean over its tokens), coloured by the image share; a click on a cell
  // selects that layer and head in the heatmap.
  void layerHeadChartShowsTheSharesAndClickingACellSelectsIt() {
    std::vector<AttentionMap> maps = maps_;
    for (AttentionMap& m : maps) {
      m.shares.clear();  // softmax layers 3, 7 × 2 heads: image share 0.1·(slot·2 + head) + 0.01·step
      for (int l = 0; l < kLayers; ++l)
        for (int h = 0; h < kHeads; ++h) {
          const float image = 0.1f * static_cast<float>(l * kHeads + h) + 0.01f * static_cast<float>(m.step);
          m.shares.insert(m.shares.end(), {image, 0.9f - image, 0.1f});
        }
      m.linear_layers = {0, 1, 2};
      m.linear_heads = 3;
      m.linear_weights.assign(static_cast<size_t>(3 * 3 * kCells), 0.01f);
      m.linear_shares.clear();
      for (int i = 0; i < 9; ++i) m.linear_shares.insert(m.linear_shares.end(), {0.05f, 0.9f, 0.05f});
    }
    AttentionPanel panel;
    panel.resize(600, 700);
    panel.setImage(TestImage());
    panel.setAttention(maps, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    LayerHeadChart* chart = panel.layerHeadChart();
    QVERIFY(chart && chart->isVisible());
    panel.selectWord(1);  // " cats": tokens 1 and 2, so the shares are their mean
    QCOMPARE(static_cast<int>(chart->shares().size()), kLayers * kHeads + 3 * 3);
    const glance::HeadShare& l7h1 = chart->shares()[3];
    QCOMPARE(l7h1.layer, 7);
    QCOMPARE(l7h1.head, 1);
    QVERIFY(std::fabs(l7h1.image - (0.3f + 0.015f)) < 1e-6f);
    QVERIFY(chart->cellText(3).contains(QStringLiteral("image 31.5 %")));
    QVERIFY(chart->cellText(3).contains(QStringLiteral("sink 10.0 %")));

    // Click layer 7, head 1: the heatmap shows that layer and head.
    const QRect cell = chart->cellRect(7, 1);
    QVERIFY(!cell.isEmpty());
    QTest::mouseClick(chart, Qt::LeftButton, {}, cell.center());
    glance::MapAggregate a = panel.currentAggregate();
    QCOMPARE(a.kind, glance::MapKind::kSoftmax);
    QCOMPARE(a.first_layer, 7);
    QCOMPARE(a.head, 1);
    QCOMPARE(panel.currentMap(), WordMap(maps, words_[1], 1, 1));
    // A DeltaNet cell selects that layer's hidden attention and head.
    QTest::mouseClick(chart, Qt::LeftButton, {}, chart->cellRect(1, 2).center());
    a = panel.currentAggregate();
    QCOMPARE(a.kind, glance::MapKind::kHidden);
    QCOMPARE(a.first_layer, 1);
    QCOMPARE(a.head, 2);
    // Control: a click outside every cell changes nothing.
    QTest::mouseClick(chart, Qt::LeftButton, {}, QPoint(1, 1));
    QCOMPARE(panel.currentAggregate().first_layer, 1);
    // Maps without shares (a reopened chat): the chart says so instead of drawing cells.
    QVERIFY(chart->emptyText().contains(QStringLiteral("not captured")));  // while it had cells
    panel.setAttention(maps_, words_);
    QVERIFY(chart->shares().empty());
    QVERIFY(chart->cellRect(7, 1).isEmpty());
    QVERIFY2(chart->emptyText().contains(QStringLiteral("not saved")), qPrintable(chart->emptyText()));
    // A chat saved with its shares (ui/attention_codec.h) reopens with the chart as captured.
    panel.setAttention(glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, words_, 3000)), words_);
    panel.selectWord(1);
    QCOMPARE(static_cast<int>(chart->shares().size()), kLayers * kHeads + 3 * 3);
    QVERIFY(std::fabs(chart->shares()[3].image - (0.3f + 0.015f)) < 1e-3f);
    QVERIFY(!chart->cellRect(7, 1).isEmpty());
  }

  // Rollout (issue 36 item 2): choosing it asks for the maps once; they replace the map until
  // new maps come; a refusal is said in the caption.
  void rolloutIsAskedForAndShown() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    std::vector<std::vector<AttentionMap>> asked;
    connect(&panel, &AttentionPanel::rolloutRequested, this,
            [&asked](const std::vector<AttentionMap>& answer) { asked.push_back(answer); });
    QVERIFY(!panel.rolloutChosen());
    panel.chooseRollout();
    QVERIFY(panel.rolloutChosen());
    QCOMPARE(static_cast<int>(asked.size()), 1);
    QCOMPARE(static_cast<int>(asked[0].size()), static_cast<int>(maps_.size()));
    QVERIFY(panel.currentMap().empty());  // nothing until it comes
    QLabel* caption = panel.findChild<QLabel*>();
    QVERIFY(caption->text().contains(QStringLiteral("Rollout")));
    // The rollout maps: token t puts everything on cell t.
    std::vector<AttentionMap> rollout;
    for (const AttentionMap& m : maps_) {
      AttentionMap r;
      r.step = m.step;
      r.token_id = m.token_id;
      r.grid_h = kGridH;
      r.grid_w = kGridW;
      r.mean.assign(kCells, 0.0f);
      r.mean[static_cast<size_t>(m.step)] = 1.0f;
      rollout.push_back(r);
    }
    panel.setRollout(rollout);
    panel.selectWord(1);  // " cats": tokens 1 and 2
    std::vector<float> want(kCells, 0.0f);
    want[1] = want[2] = 0.5f;
    QCOMPARE(panel.currentMap(), want);
    panel.selectWord(2);
    QCOMPARE(static_cast<int>(asked.size()), 1);  // not asked again
    // Back to a layer: the captured maps again (control).
    panel.setLayerHead(-1, -1);
    QCOMPARE(panel.currentMap(), WordMap(maps_, words_[2], -1, -1));
    // New maps with rollout chosen: asked again; a refusal is said.
    panel.chooseRollout();
    panel.setAttention(maps_, words_);
    QCOMPARE(static_cast<int>(asked.size()), 2);
    panel.setRolloutError(QStringLiteral("rollout needs every row's attention: too long"));
    QVERIFY(caption->text().contains(QStringLiteral("too long")));
    QVERIFY(panel.currentMap().empty());
  }

  // Two words side by side (issue 36 item 3): ctrl-click a second chip; its map is drawn beside
  // the selected word's on one colour scale; ctrl-click it again to end.
  void twoWordsSideBySideShareOneScale() {
    AttentionPanel panel;
    panel.resize(700, 700);
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::mouseClick(panel.chip(0), Qt::LeftButton);
    QVERIFY(!panel.compareHeatmap()->isVisible());
    // Hovering the second chip on the way previews it; the ctrl-click still pairs it with the
    // clicked word.
    QEnterEvent enter(QPointF(2, 2), QPointF(2, 2), QPointF(2, 2));
    QCoreApplication::sendEvent(panel.chip(2), &enter);
    QCOMPARE(panel.selectedWord(), 2);
    QTest::mouseClick(panel.chip(2), Qt::LeftButton, Qt::ControlModifier);
    QCOMPARE(panel.selectedWord(), 0);  // the first word stays selected
    QCOMPARE(panel.comparedWord(), 2);
    QVERIFY(panel.compareHeatmap()->isVisible());
    QVERIFY(panel.chip(0)->isChecked());
    QCOMPARE(panel.comparedMap(), WordMap(maps_, words_[2], -1, -1));
    // One scale: both legends give the range over both maps.
    const auto a = panel.heatmap()->legendRange(), b = panel.compareHeatmap()->legendRange();
    QCOMPARE(a, b);
    std::vector<float> both = panel.currentMap();
    const std::vector<float> second = panel.comparedMap();
    both.insert(both.end(), second.begin(), second.end());
    QCOMPARE(a.second, *std::max_element(both.begin(), both.end()));
    QCOMPARE(a.first, *std::min_element(both.begin(), both.end()));
    QVERIFY(panel.findChild<QLabel*>()->text().contains(QStringLiteral("beside")));
    // The layer/head choice applies to both.
    panel.setLayerHead(1, 1);
    QCOMPARE(panel.comparedMap(), WordMap(maps_, words_[2], 1, 1));
    // Ctrl-click it again: back to one map (control: the legends no longer need to agree).
    QTest::mouseClick(panel.chip(2), Qt::LeftButton, Qt::ControlModifier);
    QCOMPARE(panel.comparedWord(), -1);
    QVERIFY(!panel.compareHeatmap()->isVisible());
    // New maps end it too.
    panel.compareWith(1);
    QVERIFY(panel.compareHeatmap()->isVisible());
    panel.setAttention(maps_, words_);
    QCOMPARE(panel.comparedWord(), -1);
  }

  void originalPictureAndPatchesAreOffered() {
    // The model saw the middle half of a 400×120 picture (the 200×120 TestImage's aspect).
    QImage source(400, 120, QImage::Format_RGB32);
    source.fill(QColor(200, 40, 40));
    const QRect crop = ProcessedCrop(source, 200, 120);
    QCOMPARE(crop, QRect(100, 0, 200, 120));
    AttentionPanel panel;
    panel.resize(600, 800);
    panel.setImage(TestImage(), source);
    panel.setAttention(maps_, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    HeatmapWidget* map = panel.heatmap();
    const QImage processedShot = map->grab().toImage();
    QCOMPARE(map->mapRect(), map->imageRect());
    QVERIFY(panel.originalAction()->isEnabled());
    panel.originalAction()->setChecked(true);
    // The whole picture is drawn; the map covers its middle half, the cells follow it.
    const QRectF whole = map->imageRect(), covered = map->mapRect();
    QVERIFY(std::fabs(covered.width() - whole.width() / 2) < 1.0);
    QVERIFY(std::fabs(covered.left() - (whole.left() + whole.width() / 4)) < 1.0);
    QCOMPARE(map->cellAt(covered.topLeft() + QPointF(1, 1)), 0);
    QCOMPARE(map->cellAt(QPointF(whole.left() + 2, whole.center().y())), -1);  // outside the crop
    QVERIFY(map->grab().toImage() != processedShot);
    // The export stays the model's view.
    QCOMPARE(panel.renderOverlay(QSize(250, 150)), RenderOverlay(TestImage(), panel.currentMap(), kGridH, kGridW,
                                                                 map->overlayStyle(), QSize(250, 150)));
    panel.originalAction()->setChecked(false);
    QCOMPARE(map->mapRect(), map->imageRect());
    QCOMPARE(map->grab().toImage(), processedShot);  // control: back to the same picture
    // Without a source picture there is nothing to show.
    panel.setImage(TestImage());
    QVERIFY(!panel.originalAction()->isEnabled());
    // Patches: finer dotted lines inside each token change the drawing, and only with the grid.
    const QImage tokens = panel.heatmap()->render(QSize(250, 150));
    panel.patchLinesAction()->setChecked(true);
    QVERIFY(panel.heatmap()->overlayStyle().patch_lines);
    QVERIFY(panel.heatmap()->render(QSize(250, 150)) != tokens);
    panel.patchLinesAction()->setChecked(false);
    QCOMPARE(panel.heatmap()->render(QSize(250, 150)), tokens);
    // Heat only and picture only, by name in View: the slider's ends; both again at the default.
    for (const auto& [name, opacity] : {std::pair{"heatOnly", 1.0}, std::pair{"pictureOnly", 0.0},
                                        std::pair{"blend", 0.55}}) {
      auto* look = panel.findChild<QAction*>(QString::fromLatin1(name));
      QVERIFY2(look, name);
      look->trigger();
      QCOMPARE(panel.heatmap()->overlayStyle().opacity, opacity);
    }
    QCOMPARE(panel.heatmap()->render(QSize(250, 150)), tokens);  // control: the default look again
  }

  void spansAndTheWholeAnswerAverageTheirTokens() {
    AttentionPanel panel;
    panel.resize(600, 800);
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto meanOf = [&](int from, int to) {  // the mean of tokens from..to, computed here
      std::vector<float> sum(kCells, 0.0f);
      for (int t = from; t <= to; ++t)
        for (int c = 0; c < kCells; ++c) sum[static_cast<size_t>(c)] += maps_[static_cast<size_t>(t)].mean[static_cast<size_t>(c)];
      for (float& v : sum) v /= static_cast<float>(to - from + 1);
      return sum;
    };
    auto near = [](const std::vector<float>& a, const std::vector<float>& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (std::fabs(a[i] - b[i]) > 1e-6f) return false;
      return true;
    };
    // Shift-click " sit" with "cats" selected: the span " cats sit", tokens 1..3.
    QTest::mouseClick(panel.chip(1), Qt::LeftButton);
    QTest::mouseClick(panel.chip(2), Qt::LeftButton, Qt::ShiftModifier);
    QCOMPARE(panel.selectedSpan(), std::make_pair(1, 2));
    QVERIFY(panel.chip(1)->isChecked() && panel.chip(2)->isChecked() && !panel.chip(0)->isChecked());
    QVERIFY(near(panel.currentMap(), meanOf(1, 3)));
    QVERIFY(!near(panel.currentMap(), meanOf(1, 2)));  // negative control: " cats" alone differs
    // Whole answer: every token.
    QVERIFY(panel.wholeAnswerButton()->isVisible());
    QTest::mouseClick(panel.wholeAnswerButton(), Qt::LeftButton);
    QCOMPARE(panel.selectedSpan(), std::make_pair(0, 2));
    QVERIFY(near(panel.currentMap(), meanOf(0, 3)));
    // A plain click goes back to one word.
    QTest::mouseClick(panel.chip(0), Qt::LeftButton);
    QCOMPARE(panel.selectedSpan(), std::make_pair(0, 0));
    QVERIFY(!panel.chip(1)->isChecked() && panel.chip(0)->isChecked());
    QVERIFY(near(panel.currentMap(), meanOf(0, 0)));
  }

  void clickingChipChangesHeatmap() {
    AttentionPanel panel;
    panel.resize(600, 800);
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(panel.wordCount(), 3);
    QCOMPARE(panel.selectedWord(), 0);
    const QImage first = panel.renderOverlay(QSize(250, 150));

    QTest::mouseClick(panel.chip(1), Qt::LeftButton);
    QCOMPARE(panel.selectedWord(), 1);
    const QImage second = panel.renderOverlay(QSize(250, 150));
    QVERIFY(first != second);
    QCOMPARE(panel.heatmap()->render(QSize(250, 150)), second);  // what the widget paints

    QTest::mouseClick(panel.chip(1), Qt::LeftButton);  // control: same word, same picture
    QCOMPARE(panel.renderOverlay(QSize(250, 150)), second);
    QTest::mouseClick(panel.chip(0), Qt::LeftButton);
    QCOMPARE(panel.renderOverlay(QSize(250, 150)), first);
  }

  void arrowKeysMoveSelection() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::keyClick(&panel, Qt::Key_Right);
    QCOMPARE(panel.selectedWord(), 1);
    QTest::keyClick(&panel, Qt::Key_Right);
    QTest::keyClick(&panel, Qt::Key_Right);  // clamps at the end
    QCOMPARE(panel.selectedWord(), 2);
    QTest::keyClick(&panel, Qt::Key_Left);
    QCOMPARE(panel.selectedWord(), 1);
    QVERIFY(panel.chip(1)->isChecked());
  }

  void sinksAreHidden() {
    std::vector<float> map(kCells, 0.01f);
    map[4] = 0.9f;   // the sink
    map[7] = 0.04f;  // the real peak
    const auto sinks = FindSinks(map, 5.0f);
    QVERIFY(sinks[4]);
    QVERIFY(!sinks[7]);
    const auto norm = NormalizeMap(map, sinks);
    QCOMPARE(norm[7], 1.0f);  // the peak now uses the full colour range
    QCOMPARE(norm[4], 0.0f);
    const auto plain = NormalizeMap(map, std::vector<bool>(kCells, false));
    QVERIFY(plain[7] < 0.1f);  // control: without hiding, the sink flattens the peak
    QVERIFY(FindSinks(std::vector<float>(kCells, 0.1f), 5.0f) == std::vector<bool>(kCells, false));
  }

  void liveMapsFollowTheNewestToken() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.appendMap(maps_[0]);
    QCOMPARE(panel.currentMap(), maps_[0].mean);
    panel.appendMap(maps_[1]);
    QCOMPARE(panel.currentMap(), maps_[1].mean);
    QCOMPARE(panel.wordCount(), 0);
  }

  void clearResetsTheCaption() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    auto* caption = panel.findChildren<QLabel*>().first();
    QVERIFY(caption->text().contains(QStringLiteral("A")));
    panel.setImage(QImage());
    panel.clear();
    QVERIFY2(caption->text().startsWith(QStringLiteral("Attach an image")), qPrintable(caption->text()));
  }
};

QTEST_MAIN(TestAttentionPanel)
#include "test_attention_panel.moc"

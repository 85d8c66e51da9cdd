// The attention panel's heatmap as drawn: colours and scalings, its accessible description,
// hover and zoom, labels that fit, view settings kept across starts, and the PNG/JSON exports.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QPainter>
#include <QSet>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "ui/attention_data.h"
#include "ui/attention_panel.h"
#include "ui/fitting_label.h"
#include "ui/heatmap.h"
#include "ui/heatmap_description.h"
#include "ui/layer_head_chart.h"
#include "tests/ui/attention_samples.h"

using namespace glance::ui;

using namespace attention_samples;

class TestAttentionHeatmapView : public QObject {
  Q_OBJECT
 private:
  std::vector<AttentionMap> maps_ = SampleMaps();
  std::vector<AttentionWord> words_ = SampleWords();

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void hottestCellIsBrightestColour() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.setOpacity(1.0);
    panel.selectWord(2);
    panel.setLayerHead(0, 1);  // hot cell (3*3 + 0 + 2) % 15 = 11 → row 2, column 1
    const QImage img = panel.renderOverlay(QSize(250, 150)).convertToFormat(QImage::Format_RGB32);
    const auto& lut = ColormapLut(Colormap::kInferno);
    auto cellCentre = [&](int row, int col) {
      return img.pixel(col * 50 + 25, row * 50 + 25) & 0xFFFFFF;
    };
    QCOMPARE(cellCentre(2, 1), lut[255] & 0xFFFFFF);
    QCOMPARE(cellCentre(0, 0), lut[0] & 0xFFFFFF);
    QCOMPARE(cellCentre(1, 4), lut[0] & 0xFFFFFF);
  }

  // A keyboard user sees where the focus is: the focused heatmap draws a frame around itself.
  void focusedHeatmapIsFramed() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.resize(400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    HeatmapWidget* map = panel.heatmap();
    panel.setFocus();
    QVERIFY(!map->hasFocus());
    const QImage unfocused = map->grab().toImage();
    map->setFocus(Qt::TabFocusReason);
    QVERIFY(map->hasFocus());
    const QImage focused = map->grab().toImage();
    QVERIFY(focused != unfocused);
    // The frame is at the edge, in the highlight colour: the picture inside is untouched.
    const QRgb highlight = map->palette().color(QPalette::Highlight).rgb() & 0xFFFFFF;
    bool framed = false;
    for (int x = 0; x < focused.width() && !framed; ++x)
      framed = (focused.pixel(x, 1) & 0xFFFFFF) == highlight;
    QVERIFY(framed);
    panel.setFocus();
    QCOMPARE(map->grab().toImage(), unfocused);  // control: gone with the focus
  }

  // A screen reader hears the strongest cells of the map shown (it cannot see the colours):
  // the hot cell first, with its share; hidden sinks are left out as they are greyed.
  void heatmapAnnouncesItsStrongestCells() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.selectWord(2);
    panel.setLayerHead(0, 1);  // hot cell 11 → row 3, col 2 counted from 1
    const QString said = panel.heatmap()->accessibleDescription();
    QVERIFY2(said.startsWith(QStringLiteral("Strongest cells: row 3, col 2 (")), qPrintable(said));
    QCOMPARE(said.count(QStringLiteral("row ")), 3);
    panel.selectWord(0);
    QVERIFY2(panel.heatmap()->accessibleDescription() != said, qPrintable(said));  // follows the map

    std::vector<float> map(kCells, 0.01f);
    map[4] = 0.9f;   // a sink: row 1, col 5
    map[7] = 0.04f;  // the real peak: row 2, col 3
    const QString all = glance::ui::TopCellsDescription(map, 3, 5);
    QVERIFY2(all.startsWith(QStringLiteral("Strongest cells: row 1, col 5 (")), qPrintable(all));
    const QString withoutSinks = glance::ui::TopCellsDescription(map, 3, 5, FindSinks(map, 5.0f));
    QVERIFY2(withoutSinks.startsWith(QStringLiteral("Strongest cells: row 2, col 3 (")), qPrintable(withoutSinks));
    QCOMPARE(glance::ui::TopCellsDescription({}, 0, 0), QStringLiteral("No attention map."));
    QCOMPARE(glance::ui::TopCellsDescription(std::vector<float>(kCells, 0.0f), 3, 5), QStringLiteral("No attention map."));
    std::vector<float> half(kCells, 0.0f);
    half[0] = half[14] = 1.0f;  // two equal cells: reading order, 50% each
    QCOMPARE(glance::ui::TopCellsDescription(half, 3, 5, {}, 2),
             QStringLiteral("Strongest cells: row 1, col 1 (50.0%); row 3, col 5 (50.0%)."));
  }

  void scalingsAndOneScaleForEveryWord() {
    // 100 cells: one outlier at 1.0, the rest 0.000..0.098.
    std::vector<float> map(100);
    for (int i = 0; i < 99; ++i) map[static_cast<size_t>(i)] = 0.001f * static_cast<float>(i);
    map[99] = 1.0f;
    OverlayStyle style;
    const std::vector<bool> none(100, false);
    const auto minmax = NormalizeMap(map, none, style);
    QVERIFY(std::fabs(minmax[98] - 0.098f) < 1e-6f);  // the outlier flattens the rest
    style.scaling = Scaling::kPercentile;
    const auto clipped = NormalizeMap(map, none, style);
    QCOMPARE(clipped[99], 1.0f);
    QVERIFY(clipped[98] > 0.99f);   // the 98th percentile is ~0.097: the rest spread over the colours
    QVERIFY(clipped[50] > 0.45f);
    style.scaling = Scaling::kLog;
    const auto logged = NormalizeMap(map, none, style);
    QVERIFY(std::fabs(logged[1] - static_cast<float>(std::log(2.0) / std::log(1001.0))) < 1e-3f);
    QVERIFY(logged[1] > 10.0f * minmax[1]);  // small weights become visible
    QCOMPARE(logged[99], 1.0f);
    style.scaling = Scaling::kMinMax;
    style.fixed_range = true;
    style.range_lo = 0.0f;
    style.range_hi = 2.0f;
    QCOMPARE(NormalizeMap(map, none, style)[99], 0.5f);

    // The panel: one range for every word when asked, each word its own otherwise.
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.setLayerHead(0, 0);
    std::vector<std::pair<float, float>> own, shared;
    for (int w = 0; w < 3; ++w) {
      panel.selectWord(w);
      own.push_back(panel.heatmap()->legendRange());
    }
    panel.sameScaleAction()->setChecked(true);
    for (int w = 0; w < 3; ++w) {
      panel.selectWord(w);
      shared.push_back(panel.heatmap()->legendRange());
    }
    QVERIFY(shared[0] == shared[1] && shared[1] == shared[2]);
    QVERIFY(own[0] != own[1]);  // " cats" averages two tokens: a lower peak than "A"
    QCOMPARE(shared[0].second, std::max({own[0].second, own[1].second, own[2].second}));
    panel.sameScaleAction()->setChecked(false);
    panel.setScaling(Scaling::kLog);
    QCOMPARE(panel.heatmap()->overlayStyle().scaling, Scaling::kLog);
  }

  void viewSettingsAreKeptForTheNextStart() {
    {
      AttentionPanel first;
      first.setImage(TestImage());
      first.setAttention(maps_, words_);
      first.setOpacity(0.3);
      first.patchLinesAction()->setChecked(true);
      first.setScaling(Scaling::kLog);
      first.sameScaleAction()->setChecked(true);
    }
    AttentionPanel next;  // a new window: the same look
    next.setImage(TestImage());
    next.setAttention(maps_, words_);
    const OverlayStyle& style = next.heatmap()->overlayStyle();
    QVERIFY(std::fabs(style.opacity - 0.3) < 1e-9);
    QVERIFY(style.patch_lines);
    QCOMPARE(style.scaling, Scaling::kLog);
    QVERIFY(next.sameScaleAction()->isChecked());
    // Back to the defaults for the other tests.
    next.setOpacity(0.55);
    next.patchLinesAction()->setChecked(false);
    next.setScaling(Scaling::kMinMax);
    next.sameScaleAction()->setChecked(false);
  }

  void everyColourMapRunsFromDarkToBright() {
    // Sequential maps: relative luminance rises along each, so more weight always reads brighter.
    for (Colormap map : {Colormap::kInferno, Colormap::kViridis, Colormap::kCividis, Colormap::kMagma, Colormap::kGreys}) {
      const auto& lut = ColormapLut(map);
      double last = -1.0;
      for (QRgb c : lut) {
        const double y = 0.2126 * qRed(c) + 0.7152 * qGreen(c) + 0.0722 * qBlue(c);
        QVERIFY2(y >= last - 0.5, qPrintable(QStringLiteral("map %1").arg(static_cast<int>(map))));
        last = y;
      }
    }
    QVERIFY(ColormapLut(Colormap::kCividis)[0] != ColormapLut(Colormap::kViridis)[0]);  // distinct maps
  }

  void exportsPngAndJson() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.selectWord(1);
    const QString png = dir.filePath(QStringLiteral("a.png"));
    panel.setModelDescription(QStringLiteral("demo"), QStringLiteral("q8"));
    panel.setLayerHead(1, 0);
    QVERIFY(panel.exportPng(png));
    QImage loaded(png);
    // The overlay on top, then a footer that says what it is: word, layer, head, model, legend.
    const QImage drawn = panel.renderOverlay();
    QImage overlay(drawn.size(), QImage::Format_ARGB32);  // as exported: over white
    overlay.fill(Qt::white);
    {
      QPainter onWhite(&overlay);
      onWhite.drawImage(0, 0, drawn);
    }
    QVERIFY(loaded.height() > overlay.height());
    QCOMPARE(loaded.convertToFormat(QImage::Format_ARGB32).copy(0, 0, overlay.width(), overlay.height()), overlay);
    const QString description = loaded.text(QStringLiteral("Description"));
    QVERIFY2(description.contains(QStringLiteral("cats")) && description.contains(QStringLiteral("Layer 7")) &&
                 description.contains(QStringLiteral("Head 0")) && description.contains(QStringLiteral("demo")),
             qPrintable(description));
    // The legend runs from the colour map's darkest to its brightest.
    const QImage footer = loaded.convertToFormat(QImage::Format_ARGB32).copy(0, overlay.height(), loaded.width(),
                                                                            loaded.height() - overlay.height());
    QSet<QRgb> colours;
    for (int x = 0; x < footer.width(); ++x)
      for (int y = 0; y < footer.height(); ++y) colours.insert(footer.pixel(x, y) & 0xFFFFFF);
    QVERIFY(colours.contains(ColormapLut(Colormap::kInferno)[0] & 0xFFFFFF));
    QVERIFY(colours.contains(ColormapLut(Colormap::kInferno)[255] & 0xFFFFFF));
    panel.setLayerHead(-1, -1);

    const QString json = dir.filePath(QStringLiteral("a.json"));
    QVERIFY(panel.exportJson(json));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(root.value(QStringLiteral("grid_h")).toInt(), kGridH);
    QCOMPARE(root.value(QStringLiteral("grid_w")).toInt(), kGridW);
    const QJsonArray tokens = root.value(QStringLiteral("tokens")).toArray();
    QCOMPARE(tokens.size(), 4);
    const QJsonArray w3 = tokens.at(3).toObject().value(QStringLiteral("weights")).toArray();
    QCOMPARE(w3.size(), kLayers * kHeads * kCells);
    for (int i = 0; i < w3.size(); ++i)
      QCOMPARE(static_cast<float>(w3.at(i).toDouble()), maps_[3].weights[static_cast<size_t>(i)]);
    QCOMPARE(root.value(QStringLiteral("words")).toArray().at(1).toObject()
                 .value(QStringLiteral("last_step")).toInt(), 2);

    // CSV: one row per cell of the mean and of every layer's head, the same numbers.
    panel.setModelDescription(QStringLiteral("tiny, \"test\""), QStringLiteral("q8"));
    const QString csvPath = dir.filePath(QStringLiteral("a.csv"));
    QVERIFY(panel.exportCsv(csvPath));
    QFile c(csvPath);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(c.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 4 * (1 + kLayers * kHeads) * kCells);
    QCOMPARE(lines[0], QStringLiteral("model,precision,step,token_id,token_text,word,word_text,image_index,kind,layer,head,row,col,weight"));
    // Token 3 (" sit", word 2), layer 7 (slot 1), head 1, cell 13 = row 2, col 3.
    const QString prefix = QStringLiteral("\"tiny, \"\"test\"\"\",q8,3,103, sit,2, sit,0,softmax,7,1,2,3,");
    int found = 0;
    for (const QString& line : lines)
      if (line.startsWith(prefix)) {
        ++found;
        QCOMPARE(line.mid(prefix.size()).toFloat(), maps_[3].weights[static_cast<size_t>((1 * kHeads + 1) * kCells + 13)]);
      }
    QCOMPARE(found, 1);
    QCOMPARE(lines.filter(QStringLiteral(",mean,,,")).size(), 4 * kCells);
  }

  void hoverTellsTheCellAndWeightAndZoomKeepsTheCellUnderTheCursor() {
    AttentionPanel panel;
    panel.resize(600, 800);
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    HeatmapWidget* map = panel.heatmap();
    QVERIFY(map->width() >= 400);  // large by default: the panel's width, not a thumbnail
    const QRectF r = map->imageRect();
    QCOMPARE(qRound(r.width() * 3), qRound(r.height() * 5));  // the image's aspect ratio
    // The centre of cell (row 2, col 4) — the last row and column of the 3x5 grid.
    const QPointF cell(r.left() + r.width() * 4.5 / kGridW, r.top() + r.height() * 2.5 / kGridH);
    QCOMPARE(map->cellAt(cell), 2 * kGridW + 4);
    QTest::mouseMove(map, cell.toPoint());
    QTRY_VERIFY(map->hoverText().startsWith(QStringLiteral("row 3, col 5")));
    const float want = panel.currentMap()[2 * kGridW + 4];
    QVERIFY2(map->hoverText().contains(QString::number(static_cast<double>(want), 'g', 3)),
             qPrintable(map->hoverText()));
    // Shorter forms for a narrow dock, each with the weight (issue 34: "weight 0.0…" was cut).
    const QStringList forms = map->hoverForms();
    QCOMPARE(forms.value(0), map->hoverText());
    QVERIFY(forms.size() >= 2);
    for (const QString& form : forms)
      QVERIFY2(form.contains(QString::number(static_cast<double>(want), 'g', 3)), qPrintable(form));
    auto* info = panel.findChild<FittingLabel*>(QStringLiteral("cellInfo"));
    QCOMPARE(info->fullText(), map->hoverText());
    QVERIFY(forms.contains(info->text()));
    QVERIFY(map->cellAt(QPointF(-5, -5)) < 0);
    // Zoom about the cursor: the same cell stays under it, the image gets larger.
    map->setZoom(4.0, cell);
    QCOMPARE(map->zoom(), 4.0);
    QCOMPARE(map->cellAt(cell), 2 * kGridW + 4);
    QVERIFY(map->imageRect().width() > r.width() * 3.9);
    QVERIFY(map->cellAt(r.topLeft() + QPointF(2, 2)) != 0);  // the top-left cell scrolled away
    map->resetView();
    QCOMPARE(map->imageRect(), r);
    // The legend spans the shown map's weights.
    const auto [lo, hi] = map->legendRange();
    const std::vector<float> shown = panel.currentMap();
    QCOMPARE(lo, *std::min_element(shown.begin(), shown.end()));
    QCOMPARE(hi, *std::max_element(shown.begin(), shown.end()));
  }

  // Issue 34: the hint under the map read "Hover the heatmap for a c" at the default dock width.
  // It shows the longest of its forms that fits, whole; only when none fits is one elided.
  void hoverHintIsNeverCutMidWord() {
    AttentionPanel panel;
    panel.setImage(TestImage());
    panel.setAttention(maps_, words_);
    auto* hint = panel.findChild<FittingLabel*>(QStringLiteral("cellInfo"));
    QVERIFY(hint);
    const QStringList forms = AttentionPanel::hoverHint();
    QSet<QString> shown;
    for (int width : {1400, 700, 420, 300, 240}) {
      panel.resize(width, 700);
      panel.show();
      QVERIFY(QTest::qWaitForWindowExposed(&panel));
      QTRY_COMPARE(hint->width() > 0, true);
      const int room = hint->contentsRect().width();
      QVERIFY2(forms.contains(hint->text()) || hint->text().endsWith(QChar(0x2026)), qPrintable(hint->text()));
      QVERIFY2(hint->fontMetrics().horizontalAdvance(hint->text()) <= room,
               qPrintable(QStringLiteral("%1 px: '%2'").arg(room).arg(hint->text())));
      // The longest form that fits, not a shorter one.
      for (const QString& form : forms) {
        if (form == hint->text()) break;
        QVERIFY2(hint->fontMetrics().horizontalAdvance(form) > room, qPrintable(form));
      }
      if (hint->text() != forms.first()) QCOMPARE(hint->toolTip(), forms.first());  // the whole of it
      shown.insert(hint->text());
    }
    QVERIFY2(shown.size() >= 2, "the form follows the width");  // control: not one fixed text
    QVERIFY(shown.contains(forms.first()));
    // A very narrow one: the shortest form, elided (the only case with "…").
    FittingLabel narrow;
    narrow.setForms({QStringLiteral("a long sentence here"), QStringLiteral("short form")});
    narrow.resize(narrow.fontMetrics().horizontalAdvance(QStringLiteral("short")), 20);
    narrow.show();
    QVERIFY(QTest::qWaitForWindowExposed(&narrow));
    QVERIFY2(narrow.text().endsWith(QChar(0x2026)) && narrow.text().startsWith(QStringLiteral("sh")),
             qPrintable(narrow.text()));
  }

  // Issue 34: the layer numbers under the layer × head chart overlapped at 1280×720 (every
  // full-attention layer was drawn beside every few others). Never two on one another, inside
  // the chart, the full-attention layers' first; all of them when there is room.
  void layerLabelsNeverOverlap() {
    const std::vector<glance::HeadShare> shares = HybridHeadShares(24, 8);
    LayerHeadChart chart;
    chart.setShares(shares);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (QSize size : {QSize(160, 70), QSize(260, 90), QSize(420, 140), QSize(1200, 500)}) {
      chart.resize(size);
      const auto labels = chart.layerLabels();
      QVERIFY(!labels.empty());
      for (size_t i = 0; i < labels.size(); ++i) {
        QVERIFY(chart.rect().contains(labels[i].rect.topLeft()) && labels[i].rect.right() <= chart.rect().right());
        for (size_t j = i + 1; j < labels.size(); ++j)
          QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                   qPrintable(QStringLiteral("%1x%2: layers %3 and %4").arg(size.width()).arg(size.height())
                                  .arg(labels[i].number).arg(labels[j].number)));
      }
      int bold = 0;
      for (const auto& label : labels) bold += label.bold ? 1 : 0;
      // The full-attention layers go first: a plain label never takes a bold one's place.
      if (static_cast<int>(labels.size()) < 24) QVERIFY(bold >= std::min<int>(6, static_cast<int>(labels.size()) / 2));
      if (size.width() >= 1200) QCOMPARE(static_cast<int>(labels.size()), 24);  // room for every one
    }
  }

  // Issue 34, seen on a 2B-shaped model at 1280x720: 24 layers x 16 heads in the few lines the
  // panel gives the chart were 2-3 px squares, the head numbers ran into one another and off the
  // top. Cells may now be wider than tall, the chart keeps a minimum width beside the small
  // multiples, and head numbers are drawn a line apart, inside the chart.
  void aTwoBModelsChartStaysReadable() {
    const std::vector<glance::HeadShare> shares = HybridHeadShares(24, 16);
    LayerHeadChart chart;
    chart.setShares(shares);
    QVERIFY(chart.minimumSizeHint().width() >= 24 * 5);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const int em = chart.fontMetrics().height();
    for (QSize size : {QSize(chart.minimumSizeHint().width(), 4 * em), QSize(260, 5 * em), QSize(600, 300)}) {
      chart.resize(size);
      const QRect first = chart.cellRect(0, 0), last = chart.cellRect(23, 15);
      QVERIFY2(first.width() >= 4 && first.height() >= 2,
               qPrintable(QStringLiteral("%1x%2: cells %3x%4").arg(size.width()).arg(size.height())
                              .arg(first.width()).arg(first.height())));
      QVERIFY(first.height() <= first.width() && first.width() <= 2 * first.height());
      QVERIFY(chart.rect().contains(first) && chart.rect().contains(last));
      QCOMPARE(chart.cellAt(last.center()), static_cast<int>(shares.size()) - 1);  // clickable
      const auto heads = chart.headLabels();
      QVERIFY2(heads.size() >= 2, qPrintable(QStringLiteral("%1 head labels").arg(heads.size())));
      for (size_t i = 0; i < heads.size(); ++i) {
        QVERIFY(chart.rect().contains(heads[i].rect));
        if (i > 0) QVERIFY(!heads[i].rect.intersects(heads[i - 1].rect));
      }
    }
  }
};

QTEST_MAIN(TestAttentionHeatmapView)
#include "test_attention_heatmap_view.moc"

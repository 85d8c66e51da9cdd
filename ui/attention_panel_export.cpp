// The attention panel's exports: the heatmap as a PNG that explains itself (word, model, legend),
// the maps as JSON or CSV, and the dialogs that ask where.
#include <QBuffer>
#include <QFileDialog>
#include <QFontMetrics>
#include <QLabel>
#include <QPainter>
#include <algorithm>
#include <sstream>

#include "core/engine/attention_csv.h"
#include "ui/atomic_save.h"
#include "ui/attention_data.h"
#include "ui/attention_panel.h"
#include "ui/stats_format.h"

namespace glance::ui {

QImage AttentionPanel::renderExport() const {
  const QImage overlay = renderOverlay();
  // Under the picture: what it shows (word, grid, layer, head), the model, and the colour legend
  // with the weights at its ends — a PNG that explains itself away from the app.
  const QFont font = this->font();
  const QFontMetrics fm(font);
  const int em = fm.height(), pad = em / 2;
  const QString what = caption_->text();
  const QString who = model_.isEmpty() ? QString() : tr("%1, %2 weights").arg(model_, precision_);
  const int footer = pad + em * (who.isEmpty() ? 1 : 2) + pad + em + em + pad;
  QImage out(overlay.width(), overlay.height() + footer, QImage::Format_ARGB32);
  out.fill(Qt::white);
  QPainter p(&out);
  p.drawImage(0, 0, overlay);
  p.setFont(font);
  p.setPen(Qt::black);
  int y = overlay.height() + pad;
  p.drawText(QRect(pad, y, out.width() - 2 * pad, em), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(what, Qt::ElideRight, out.width() - 2 * pad));
  y += em;
  if (!who.isEmpty()) {
    p.drawText(QRect(pad, y, out.width() - 2 * pad, em), Qt::AlignLeft | Qt::AlignVCenter, who);
    y += em;
  }
  y += pad;
  const auto& lut = ColormapLut(currentStyle().colormap);
  const QRect bar(pad, y, out.width() - 2 * pad, em);
  for (int x = 0; x < bar.width(); ++x)
    p.fillRect(QRect(bar.left() + x, bar.top(), 1, bar.height()),
               QColor(lut[static_cast<size_t>(x * 255 / std::max(1, bar.width() - 1))]));
  const auto [lo, hi] = heatmap_->legendRange();
  y += em;
  p.drawText(QRect(pad, y, out.width() - 2 * pad, em), Qt::AlignLeft | Qt::AlignVCenter, FormatWeight(lo));
  p.drawText(QRect(pad, y, out.width() - 2 * pad, em), Qt::AlignHCenter | Qt::AlignVCenter, tr("attention weight"));
  p.drawText(QRect(pad, y, out.width() - 2 * pad, em), Qt::AlignRight | Qt::AlignVCenter, FormatWeight(hi));
  p.end();
  out.setText(QStringLiteral("Description"), who.isEmpty() ? what : what + QStringLiteral(" \u00B7 ") + who);
  out.setText(QStringLiteral("Software"), QStringLiteral("Glance"));
  return out;
}

bool AttentionPanel::exportPng(const QString& path) const {
  // Encoded first, then written whole (ui/atomic_save.h).
  QByteArray png;
  QBuffer buffer(&png);
  return buffer.open(QIODevice::WriteOnly) && renderExport().save(&buffer, "PNG") && SaveFileAtomically(path, png);
}

bool AttentionPanel::exportJson(const QString& path) const {
  return SaveFileAtomically(path, AttentionToJson(maps_, words_, model_, precision_));
}

bool AttentionPanel::exportCsv(const QString& path) const {
  std::ostringstream csv;
  WriteAttentionCsv(csv, AttentionExport{model_.toStdString(), precision_.toStdString(), maps_, words_});
  return SaveFileAtomically(path, QByteArray::fromStdString(csv.str()));
}

void AttentionPanel::onExportPng() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export heatmap"),
                                                    QStringLiteral("attention.png"),
                                                    tr("PNG images (*.png)"));
  if (!path.isEmpty() && !exportPng(path))
    caption_->setText(tr("Could not write %1.").arg(path));
}

void AttentionPanel::onExportJson() {
  QString filter;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export attention maps"),
                                                    QStringLiteral("attention.json"),
                                                    tr("JSON files (*.json);;CSV files, one row per cell (*.csv)"), &filter);
  const bool csv = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive) ||
                   (filter.contains(QStringLiteral("*.csv")) && !path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive));
  if (!path.isEmpty() && !(csv ? exportCsv(path) : exportJson(path)))
    caption_->setText(tr("Could not write %1.").arg(path));
}

}  // namespace glance::ui

#include "ui/heatmap_description.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>
#include <algorithm>
#include <numeric>

namespace glance::ui {

QString TopCellsDescription(const std::vector<float>& map, int grid_h, int grid_w,
                            const std::vector<bool>& skip, int count) {
  const size_t cells = static_cast<size_t>(std::max(0, grid_h)) * static_cast<size_t>(std::max(0, grid_w));
  if (cells == 0 || map.size() != cells) return QCoreApplication::translate("HeatmapWidget", "No attention map.");
  const auto kept = [&skip](size_t i) { return skip.empty() || i >= skip.size() || !skip[i]; };
  std::vector<size_t> order;
  double total = 0.0;
  for (size_t i = 0; i < cells; ++i) {
    if (!kept(i)) continue;
    order.push_back(i);
    total += static_cast<double>(std::max(0.0f, map[i]));
  }
  if (total <= 0.0) return QCoreApplication::translate("HeatmapWidget", "No attention map.");
  const size_t shown = std::min(order.size(), static_cast<size_t>(std::max(1, count)));
  // Largest first; ties by reading order, so the text does not flicker between equal cells.
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&map](size_t a, size_t b) { return map[a] != map[b] ? map[a] > map[b] : a < b; });
  QStringList parts;
  for (size_t k = 0; k < shown; ++k) {
    const size_t i = order[k];
    parts << QCoreApplication::translate("HeatmapWidget", "row %1, col %2 (%3%)")
                 .arg(static_cast<int>(i) / grid_w + 1)
                 .arg(static_cast<int>(i) % grid_w + 1)
                 .arg(QLocale().toString(100.0 * static_cast<double>(std::max(0.0f, map[i])) / total, 'f', 1));
  }
  return QCoreApplication::translate("HeatmapWidget", "Strongest cells: %1.").arg(parts.join(QStringLiteral("; ")));
}

}  // namespace glance::ui

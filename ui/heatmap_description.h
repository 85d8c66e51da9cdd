#pragma once
// What a screen reader says about an attention map (issue 34 'the heatmap announces its top
// cells'): the map is drawn, so without this text a blind user learns nothing from it. The
// heatmap widget sets it as its accessible description whenever its map changes.
#include <QString>
#include <vector>

namespace glance::ui {

// "Strongest cells: row 2, col 1 (41.0%); row 3, col 5 (12.5%); row 1, col 1 (6.3%)." — the `count`
// largest weights of `map` ([grid_h*grid_w], row-major; rows and columns from 1, as the hover
// line says them), each as its share of the map's total. Cells marked in `skip` (hidden sinks;
// empty: none) are left out. An empty or all-zero map: "No attention map."
QString TopCellsDescription(const std::vector<float>& map, int grid_h, int grid_w,
                            const std::vector<bool>& skip = {}, int count = 3);

}  // namespace glance::ui

#pragma once
// Before a detail-mode image is encoded: how many tokens it will become (the model's own
// smart_resize, core/vision/image_preprocessor.h) and about how long that takes here, so the
// window can warn before an image turns into thousands of tokens.
#include <QSize>
#include <QString>

namespace glance::ui {

struct DetailEstimate {
  int tokens = 0;      // merged image tokens in detail mode; 0 when unknown
  QSize resized;       // what the vision tower would see
  double seconds = -1; // encoding + reading them; < 0 when nothing was measured yet
};

// Detail mode warns from this many image tokens on.
constexpr int kDetailWarnTokens = 2048;

// `model_dir`'s preprocessor_config.json and the image's size (from its header). The rates
// are this machine's, measured on earlier turns (0: unknown): seconds of vision per image
// token, and prompt tokens read per second.
DetailEstimate EstimateDetail(const QString& model_dir, QSize source, double vision_s_per_token,
                              double prefill_tokens_per_s);

// "This image becomes about 4,212 image tokens in detail mode (2,400×1,792 pixels); encoding
// and reading them take about 95 s here."
QString DetailWarningText(const DetailEstimate& estimate);

}  // namespace glance::ui

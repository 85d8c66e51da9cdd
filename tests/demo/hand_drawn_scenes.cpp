#include "tests/demo/hand_drawn_scenes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/util/error.h"

namespace glance::demo {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kCell = kSide / 3.0;
constexpr double kCellMargin = 8;  // an object's centre stays this far inside its cell: its position word is clear
constexpr int kToken = 32;         // the model's image tokens: 32-pixel squares (16-pixel patches, 2x2 merge)
constexpr int kShift = 4;          // OpenCV's fractional bits for sub-pixel vertices

// What a paint program offers under these names: CSS named colours (CSS Color Module Level 4),
// with "saddlebrown" for brown (CSS "brown" is a dark red).
const std::map<std::string, cv::Vec3b>& Palette() {
  static const std::map<std::string, cv::Vec3b> p = {
      {"red", {255, 0, 0}},      {"orange", {255, 165, 0}},   {"yellow", {255, 255, 0}},
      {"green", {0, 128, 0}},    {"blue", {0, 0, 255}},       {"purple", {128, 0, 128}},
      {"pink", {255, 192, 203}}, {"brown", {139, 69, 19}},    {"white", {255, 255, 255}},
      {"black", {0, 0, 0}},      {"grey", {128, 128, 128}}};
  return p;
}

// Circumradius ranges by size word, with gaps between them so that the word is not in doubt.
const std::map<std::string, std::pair<double, double>>& SizeRadii() {
  static const std::map<std::string, std::pair<double, double>> s = {
      {"small", {7, 10}}, {"medium", {11.5, 13.5}}, {"large", {16, 38}}};
  return s;
}

// Turning a square by 45 degrees makes a diamond and a cross an x: those turn at most 15.
double MaxTurn(const std::string& shape) {
  if (shape == "square" || shape == "diamond" || shape == "cross") return 15;
  if (shape == "triangle") return 30;
  if (shape == "star") return 36;
  return 0;
}

// std::mt19937_64's sequence is fixed by the standard; the library's distributions are not, so
// the draws are made here.
class Draws {
 public:
  explicit Draws(uint64_t seed) : gen_(seed * 0x9E3779B97F4A7C15ull + 12345) {}
  double Uniform(double a, double b) { return a + (b - a) * static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
  int Below(int n) { return std::min(n - 1, static_cast<int>(Uniform(0, n))); }
  bool Chance(double p) { return Uniform(0, 1) < p; }
  template <class T>
  const T& Pick(const std::vector<T>& v) { return v[static_cast<size_t>(Below(static_cast<int>(v.size())))]; }
  uint64_t Raw() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

cv::Vec3b Jitter(cv::Vec3b c, Draws& d) {
  for (int k = 0; k < 3; ++k) c[k] = cv::saturate_cast<uchar>(c[k] + d.Uniform(-10, 10));
  return c;
}

std::vector<cv::Point2d> Outline(const DrawnObject& o, double star_inner, double cross_width) {
  std::vector<cv::Point2d> v;
  const double t = o.turn * kPi / 180, R = o.radius;
  auto at = [&](double angle_deg, double r) {
    const double a = angle_deg * kPi / 180 + t;
    v.emplace_back(o.cx + r * std::cos(a), o.cy + r * std::sin(a));
  };
  if (o.shape == "square") {
    for (int k = 0; k < 4; ++k) at(45 + 90 * k, R);
  } else if (o.shape == "diamond") {
    for (int k = 0; k < 4; ++k) at(90 * k, R);
  } else if (o.shape == "triangle") {  // equilateral, point up
    for (int k = 0; k < 3; ++k) at(-90 + 120 * k, R);
  } else if (o.shape == "star") {
    for (int k = 0; k < 10; ++k) at(-90 + 36 * k, k % 2 ? R * star_inner : R);
  } else if (o.shape == "cross") {  // a plus sign: arms of half-length L and half-width W
    const double L = R / std::sqrt(1 + cross_width * cross_width), W = L * cross_width;
    const double pts[12][2] = {{-W, -L}, {W, -L}, {W, -W}, {L, -W}, {L, W}, {W, W},
                               {W, L},   {-W, L}, {-W, W}, {-L, W}, {-L, -W}, {-W, -W}};
    const double c = std::cos(t), s = std::sin(t);
    for (const auto& p : pts) v.emplace_back(o.cx + c * p[0] - s * p[1], o.cy + s * p[0] + c * p[1]);
  } else {
    throw Error("hand-drawn scenes: cannot draw a \"" + o.shape + "\"");
  }
  return v;
}

// Fills the object into `img` (any type) with `colour`, anti-aliased.
void Fill(cv::Mat& img, const DrawnObject& o, const cv::Scalar& colour, double star_inner, double cross_width) {
  const double scale = 1 << kShift;
  if (o.shape == "circle") {
    cv::circle(img, cv::Point(cvRound(o.cx * scale), cvRound(o.cy * scale)), cvRound(o.radius * scale), colour,
               cv::FILLED, cv::LINE_AA, kShift);
    return;
  }
  std::vector<cv::Point> p;
  for (const auto& q : Outline(o, star_inner, cross_width)) p.emplace_back(cvRound(q.x * scale), cvRound(q.y * scale));
  cv::fillPoly(img, std::vector<std::vector<cv::Point>>{p}, colour, cv::LINE_AA, kShift);
}

cv::Mat Background(DrawnScene& s, Draws& d, const std::vector<std::string>& names) {
  cv::Mat img(kSide, kSide, CV_32FC3);
  const auto colour = [](const std::string& n) { return cv::Vec3f(Palette().at(n)); };
  const double kind = d.Uniform(0, 1);
  s.background = {d.Pick(names)};
  const cv::Vec3f a = colour(s.background[0]) + cv::Vec3f(cv::Vec3f(Jitter({128, 128, 128}, d)) - cv::Vec3f(128, 128, 128));
  img.setTo(cv::Scalar(a[0], a[1], a[2]));
  if (kind < 0.3) {
    s.background_kind = "plain";
  } else if (kind < 0.5) {  // two colours split across or down, near the middle
    s.background_kind = "two-tone";
    std::string second;
    do second = d.Pick(names); while (second == s.background[0]);
    s.background.push_back(second);
    const bool across = d.Chance(0.5);
    const int at = static_cast<int>(d.Uniform(0.42, 0.58) * kSide);
    const cv::Rect rest = across ? cv::Rect(0, at, kSide, kSide - at) : cv::Rect(at, 0, kSide - at, kSide);
    const cv::Vec3f b = colour(second);
    img(rest).setTo(cv::Scalar(b[0], b[1], b[2]));
  } else if (kind < 0.7) {  // one colour, lighter at one side, darker at the other
    s.background_kind = "gradient";
    const double angle = d.Uniform(0, 2 * kPi), depth = d.Uniform(0.1, 0.25);
    for (int y = 0; y < kSide; ++y)
      for (int x = 0; x < kSide; ++x) {
        const double t = ((x - kSide / 2.0) * std::cos(angle) + (y - kSide / 2.0) * std::sin(angle)) / kSide;
        img.at<cv::Vec3f>(y, x) *= static_cast<float>(1 + 2 * depth * t);
      }
  } else if (kind < 0.85) {  // paper: smooth blotches, a faint coarse grain
    s.background_kind = "texture";
    cv::Mat coarse(kSide / 8, kSide / 8, CV_32FC1), fine;
    cv::RNG(d.Raw()).fill(coarse, cv::RNG::UNIFORM, -1, 1);
    cv::resize(coarse, fine, img.size(), 0, 0, cv::INTER_CUBIC);
    const float amp = static_cast<float>(d.Uniform(6, 14));
    std::vector<cv::Mat> ch;
    cv::split(img, ch);
    for (auto& c : ch) c += amp * fine;
    cv::merge(ch, img);
  } else {  // sensor-like noise in every pixel
    s.background_kind = "noise";
    cv::Mat noise(img.size(), CV_32FC3);
    cv::RNG(d.Raw()).fill(noise, cv::RNG::NORMAL, 0, d.Uniform(3, 8));
    img += noise;
  }
  return img;
}

std::string Article(const std::string& w) { return std::string("aeiou").find(w[0]) != std::string::npos ? "an" : "a"; }

}  // namespace

const std::vector<std::string>& DrawnBackgrounds() {
  static const std::vector<std::string> b = {"white", "black", "grey", "blue", "green", "yellow"};
  return b;
}

DrawnScene DrawScene(uint64_t seed, const DemoScenes& vocabulary) {
  for (const auto& c : vocabulary.colours)
    if (!Palette().count(c)) throw Error("hand-drawn scenes: no colour value for \"" + c + "\"");
  for (const auto& z : vocabulary.sizes)
    if (!SizeRadii().count(z)) throw Error("hand-drawn scenes: no radius range for size \"" + z + "\"");
  if (vocabulary.positions.size() != 9) throw Error("hand-drawn scenes: the vocabulary must name 9 positions");
  Draws d(seed);
  DrawnScene s;
  s.seed = seed;
  cv::Mat img = Background(s, d, DrawnBackgrounds());
  const double u = d.Uniform(0, 1);
  const int n = u < 0.4 ? 1 : u < 0.7 ? 2 : 3;
  std::vector<int> cells(9), shapes(vocabulary.shapes.size());
  for (size_t k = 0; k < cells.size(); ++k) cells[k] = static_cast<int>(k);
  for (size_t k = 0; k < shapes.size(); ++k) shapes[k] = static_cast<int>(k);
  for (int k = 0; k < n; ++k) {  // partial Fisher-Yates: n distinct cells and shapes
    std::swap(cells[static_cast<size_t>(k)], cells[static_cast<size_t>(k + d.Below(9 - k))]);
    std::swap(shapes[static_cast<size_t>(k)], shapes[static_cast<size_t>(k + d.Below(static_cast<int>(shapes.size()) - k))]);
  }
  std::vector<int> order(cells.begin(), cells.begin() + n);
  std::sort(order.begin(), order.end());
  const double star_inner = d.Uniform(0.38, 0.5), cross_width = d.Uniform(0.26, 0.38);
  for (int k = 0; k < n; ++k) {
    DrawnObject o;
    o.shape = vocabulary.shapes[static_cast<size_t>(shapes[static_cast<size_t>(k)])];
    o.cell = order[static_cast<size_t>(k)];
    o.size = d.Pick(vocabulary.sizes);
    std::vector<std::string> colours;
    for (const auto& c : vocabulary.colours)
      if (std::find(s.background.begin(), s.background.end(), c) == s.background.end()) colours.push_back(c);
    o.colour = d.Pick(colours);
    o.rgb = Jitter(Palette().at(o.colour), d);
    o.turn = d.Uniform(-MaxTurn(o.shape), MaxTurn(o.shape));
    for (int attempt = 0;; ++attempt) {
      const auto [lo, hi] = SizeRadii().at(o.size);
      o.radius = d.Uniform(lo, hi);
      const int col = o.cell % 3, row = o.cell / 3;
      auto span = [&](int i) {
        return std::pair(std::max(i * kCell + kCellMargin, o.radius + 2), std::min((i + 1) * kCell - kCellMargin, kSide - o.radius - 2));
      };
      const auto [x0, x1] = span(col);
      const auto [y0, y1] = span(row);
      o.cx = d.Uniform(x0, std::max(x0, x1));
      o.cy = d.Uniform(y0, std::max(y0, y1));
      const bool apart = std::all_of(s.objects.begin(), s.objects.end(), [&](const DrawnObject& p) {
        return std::hypot(o.cx - p.cx, o.cy - p.cy) > o.radius + p.radius + 4;
      });
      if (apart && x0 <= x1 && y0 <= y1) break;
      if (attempt > 200) throw Error("hand-drawn scenes: seed " + std::to_string(seed) + ": cannot place the objects");
      if (attempt % 20 == 19 && o.size != vocabulary.sizes.front()) {  // smaller, then try again
        o.size = vocabulary.sizes[static_cast<size_t>(std::find(vocabulary.sizes.begin(), vocabulary.sizes.end(), o.size) -
                                                       vocabulary.sizes.begin() - 1)];
      }
    }
    s.objects.push_back(o);
  }
  for (const auto& o : s.objects) {
    Fill(img, o, cv::Scalar(o.rgb[0], o.rgb[1], o.rgb[2]), star_inner, cross_width);
    cv::Mat mask = cv::Mat::zeros(kSide, kSide, CV_8UC1);
    Fill(mask, o, cv::Scalar(255), star_inner, cross_width);
    std::vector<int> touched;
    for (int ty = 0; ty < kSide / kToken; ++ty)
      for (int tx = 0; tx < kSide / kToken; ++tx) {
        double peak = 0;
        cv::minMaxLoc(mask(cv::Rect(tx * kToken, ty * kToken, kToken, kToken)), nullptr, &peak);
        if (peak >= 128) touched.push_back(ty * (kSide / kToken) + tx);
      }
    s.token_cells.push_back(touched);
  }
  img.convertTo(s.rgb, CV_8UC3);  // rounds and saturates
  if (d.Chance(0.2)) {
    s.blurred = true;
    cv::GaussianBlur(s.rgb, s.rgb, cv::Size(0, 0), d.Uniform(0.6, 1.0));
  }
  if (d.Chance(0.3)) s.jpeg_quality = static_cast<int>(d.Uniform(30, 85));
  return s;
}

DemoScene WriteScene(const DrawnScene& s, const DemoScenes& vocabulary, const std::string& dir) {
  DemoScene out;
  out.index = static_cast<int>(s.seed);
  out.background = s.background;
  cv::Mat bgr;
  cv::cvtColor(s.rgb, bgr, cv::COLOR_RGB2BGR);
  std::vector<uchar> bytes;
  const bool jpeg = s.jpeg_quality > 0;
  if (!cv::imencode(jpeg ? ".jpg" : ".png", bgr, bytes, {jpeg ? cv::IMWRITE_JPEG_QUALITY : cv::IMWRITE_PNG_COMPRESSION, jpeg ? s.jpeg_quality : 1}))
    throw Error("hand-drawn scenes: cannot encode scene " + std::to_string(s.seed));
  out.image_path = dir + "/drawn-" + std::to_string(s.seed) + (jpeg ? ".jpg" : ".png");
  std::ofstream f(out.image_path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw Error(out.image_path + ": cannot write the scene");
  std::string objects;
  for (size_t k = 0; k < s.objects.size(); ++k) {
    const DrawnObject& o = s.objects[k];
    DemoObject t;
    t.shape = o.shape;
    t.colour = o.colour;
    t.size = o.size;
    t.cell = o.cell;
    t.position = vocabulary.positions[static_cast<size_t>(o.cell)];
    t.token_cells = s.token_cells[k];
    out.objects.push_back(t);
    const std::string phrase = Article(o.size) + " " + o.size + " " + o.colour + " " + o.shape + " " + t.position;
    objects += (k == 0 ? "" : k + 1 == s.objects.size() ? " and " : ", ") + phrase;
  }
  // The labels beside the picture (drawn-N.json), so the twin can read its tower on the very
  // pictures the engine is measured on (tools/twin/probe_drawn.py).
  nlohmann::ordered_json labels{{"seed", s.seed}, {"background", s.background}, {"objects", nlohmann::json::array()}};
  for (const DrawnObject& o : s.objects)
    labels["objects"].push_back({{"shape", o.shape}, {"colour", o.colour}, {"size", o.size}, {"cell", o.cell},
                                 {"cx", o.cx}, {"cy", o.cy}, {"radius", o.radius}, {"turn", o.turn}});
  const std::string labels_path = dir + "/drawn-" + std::to_string(s.seed) + ".json";
  std::ofstream lf(labels_path, std::ios::binary);
  lf << labels.dump() << '\n';
  if (!lf) throw Error(labels_path + ": cannot write the scene's labels");
  std::string bg = s.background[0] + (s.background.size() > 1 ? " and " + s.background[1] : "");
  out.caption = objects + (s.objects.size() > 1 ? "," : "") + " on " + Article(bg) + " " + bg + " background.";
  out.caption[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out.caption[0])));
  // "Is there ...?": half about an object that is there; a quarter change its colour or its
  // shape (the answer must bind the two); a quarter ask any pair that is not there.
  Draws d(s.seed ^ 0x5151);
  const DrawnObject& o = s.objects[static_cast<size_t>(d.Below(static_cast<int>(s.objects.size())))];
  std::string colour = o.colour, shape = o.shape;
  auto there = [&](const std::string& c, const std::string& h) {
    return std::any_of(s.objects.begin(), s.objects.end(), [&](const DrawnObject& x) { return x.colour == c && x.shape == h; });
  };
  const double u = d.Uniform(0, 1);
  if (u >= 0.5) {
    do {
      if (u < 0.625) colour = d.Pick(vocabulary.colours);
      else if (u < 0.75) shape = d.Pick(vocabulary.shapes);
      else colour = d.Pick(vocabulary.colours), shape = d.Pick(vocabulary.shapes);
    } while (there(colour, shape));
  }
  out.questions.push_back({"exists", "Is there " + Article(colour) + " " + colour + " " + shape + "?", there(colour, shape) ? "yes" : "no"});
  return out;
}

}  // namespace glance::demo

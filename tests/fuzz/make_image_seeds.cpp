// Writes small image seeds for fuzz_image under tests/fuzz/seeds/image/ (committed; rerun after
// changing what should be covered). Build and run from the repository root:
//   g++ -std=c++20 -I/usr/include/opencv4 tests/fuzz/make_image_seeds.cpp \
//       -lopencv_core -lopencv_imgcodecs -o /tmp/make_image_seeds && /tmp/make_image_seeds
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

int main() {
  const std::filesystem::path dir = "tests/fuzz/seeds/image";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const cv::Mat& m, const std::string& ext, std::vector<int> params = {}) {
    std::vector<uint8_t> out;
    if (!cv::imencode(ext, m, out, params)) return;
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(out.data()),
                                                     static_cast<std::streamsize>(out.size()));
  };
  cv::Mat bgr(6, 9, CV_8UC3);
  cv::randu(bgr, 0, 255);
  cv::Mat grey(5, 4, CV_8UC1, cv::Scalar(90));
  cv::Mat bgra(4, 4, CV_8UC4, cv::Scalar(10, 20, 30, 128));
  cv::Mat deep(3, 5, CV_16UC3, cv::Scalar(1000, 20000, 65535));
  write("rgb.png", bgr, ".png");
  write("grey.png", grey, ".png");
  write("alpha.png", bgra, ".png");
  write("deep.png", deep, ".png");
  write("rgb.jpg", bgr, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 80});
  write("progressive.jpg", bgr, ".jpg", {cv::IMWRITE_JPEG_PROGRESSIVE, 1});
  write("grey.jpg", grey, ".jpg");
  write("lossless.webp", bgr, ".webp", {cv::IMWRITE_WEBP_QUALITY, 101});
  write("lossy.webp", bgr, ".webp", {cv::IMWRITE_WEBP_QUALITY, 50});
  write("alpha.webp", bgra, ".webp", {cv::IMWRITE_WEBP_QUALITY, 101});
  write("rgb.bmp", bgr, ".bmp");
  write("grey.bmp", grey, ".bmp");
  write("rgb.tiff", bgr, ".tiff");
  write("deep.tiff", deep, ".tiff");
  write("alpha.tiff", bgra, ".tiff");
  return 0;
}

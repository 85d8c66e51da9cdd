#include "core/engine/attention_csv.h"

#include <charconv>
#include <string>

#include "core/engine/caption_folder.h"  // CsvField

namespace glance {

namespace {

// The shortest decimal text that reads back to the same float (std::to_chars round-trips).
std::string Number(float v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

int WordOf(const std::vector<AttentionWord>& words, int step) {
  for (size_t w = 0; w < words.size(); ++w)
    if (step >= words[w].first_step && step <= words[w].last_step) return static_cast<int>(w);
  return -1;
}

}  // namespace

void WriteAttentionCsv(std::ostream& out, const AttentionExport& a) {
  out << "model,precision,step,token_id,token_text,word,word_text,image_index,kind,layer,head,row,col,weight\n";
  const std::string model = CsvField(a.model), precision = CsvField(a.precision);
  for (const AttentionMap& m : a.maps) {
    const int word = WordOf(a.words, m.step);
    const std::string token = std::to_string(m.step) + ',' + std::to_string(m.token_id) + ',' +
                              CsvField(m.token_text) + ',' + (word < 0 ? std::string() : std::to_string(word)) +
                              ',' + (word < 0 ? std::string() : CsvField(a.words[static_cast<size_t>(word)].text)) +
                              ',' + std::to_string(m.image_index) + ',';
    const int cells = m.grid_h * m.grid_w;
    auto rows = [&](const char* kind, const std::string& layer, const std::string& head, const float* w) {
      for (int c = 0; c < cells; ++c)
        out << model << ',' << precision << ',' << token << kind << ',' << layer << ',' << head << ','
            << c / m.grid_w << ',' << c % m.grid_w << ',' << Number(w[c]) << '\n';
    };
    const std::vector<float> mean = m.mean.empty() ? m.Select(-1, -1) : m.mean;
    if (static_cast<int>(mean.size()) == cells) rows("mean", "", "", mean.data());
    if (m.weights.size() == m.layers.size() * static_cast<size_t>(m.n_heads) * static_cast<size_t>(cells))
      for (size_t l = 0; l < m.layers.size(); ++l)
        for (int h = 0; h < m.n_heads; ++h)
          rows("softmax", std::to_string(m.layers[l]), std::to_string(h),
               m.weights.data() + (l * static_cast<size_t>(m.n_heads) + static_cast<size_t>(h)) * static_cast<size_t>(cells));
    if (m.linear_weights.size() ==
        m.linear_layers.size() * static_cast<size_t>(m.linear_heads) * static_cast<size_t>(cells))
      for (size_t l = 0; l < m.linear_layers.size(); ++l)
        for (int h = 0; h < m.linear_heads; ++h)
          rows("deltanet", std::to_string(m.linear_layers[l]), std::to_string(h),
               m.linear_weights.data() +
                   (l * static_cast<size_t>(m.linear_heads) + static_cast<size_t>(h)) * static_cast<size_t>(cells));
  }
}

}  // namespace glance

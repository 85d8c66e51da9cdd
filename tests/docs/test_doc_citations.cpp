// Every citation of a Markdown page in the source tree resolves (docs/style.md "Comments"):
//   qwen35.md §2.7          -> a page docs/qwen35.md with a heading numbered 2.7
//   docs/design.md "Timing" -> a page docs/design.md with a heading that starts "Timing"
//   kernels/cpu/README.md   -> the file exists
// and so does every repository file a code comment names by its path from the root
// ("core/engine/session.h", "tests/kernels/test_gemv_rows.cpp", with ":LINE" the file has).
// A cited path resolves from the repository root, from docs/, or from the citing file's folder;
// a quoted title matches a heading that contains it. In code only comments are read (a string
// such as "export" + ".md" in a test is not a citation); Markdown and Python are read whole.
// Consecutive comment lines are joined, so a title broken over two lines still reads as one.
// Negative controls show that a missing page, section or heading fails.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Citation {
  std::string page;                   // as written: "qwen35.md", "docs/design.md"
  std::vector<std::string> sections;  // "2.7", "1.1" (from "§2.7", "§1.1-1.3" gives 1.1 and 1.3)
  std::string title;                  // the quoted heading, if any
};

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Line breaks and the comment markers after them become one space.
std::string JoinCommentLines(const std::string& text) {
  static const std::regex continuation(R"([ \t]*\r?\n[ \t]*(//+|#+|\*+|--)?[ \t]*)");
  return std::regex_replace(text, continuation, " ");
}

// The comment text of each line ("" for a line without one), lines kept: `marker` starts a
// comment ("//" for C++, "#" for shell and CMake). A marker inside a URL ("://") is not one.
std::string CommentsOnly(const std::string& text, const std::string& marker) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find(marker);
    while (at != std::string::npos && at > 0 && line[at - 1] == ':') at = line.find(marker, at + 1);
    if (at != std::string::npos) out += line.substr(at + marker.size());
    out += '\n';
  }
  return out;
}

std::vector<Citation> FindCitations(const std::string& text) {
  // A page name, then optionally: § numbers (with ranges and lists), or a quoted title.
  static const std::regex cite(
      R"(([A-Za-z0-9_][A-Za-z0-9_./-]*\.md)\b((?:[ ,/]*(?:and\s+)?§\s*[0-9]+(?:\.[0-9]+)*(?:\s*[-–]\s*[0-9]+(?:\.[0-9]+)*)?)*)(?:\s+"([^"]+)\"?)?)");
  static const std::regex number(R"([0-9]+(?:\.[0-9]+)*)");
  std::vector<Citation> out;
  const std::string joined = JoinCommentLines(text);
  for (auto it = std::sregex_iterator(joined.begin(), joined.end(), cite); it != std::sregex_iterator(); ++it) {
    // Part of a URL or an absolute path: not a page of this repository.
    const auto pos = it->position(0);
    if (pos > 0 && (joined[size_t(pos) - 1] == '/' || joined[size_t(pos) - 1] == ':')) continue;
    Citation c;
    c.page = (*it)[1].str();
    const std::string secs = (*it)[2].str();
    for (auto n = std::sregex_iterator(secs.begin(), secs.end(), number); n != std::sregex_iterator(); ++n)
      c.sections.push_back(n->str());
    // A quote right after the page is a heading title, unless § numbers came first.
    if (c.sections.empty() && (*it)[3].matched) c.title = (*it)[3].str();
    out.push_back(std::move(c));
  }
  return out;
}

// The page a citation in `from` (a file under `root`) names, or empty.
fs::path Resolve(const fs::path& root, const fs::path& from, const std::string& page) {
  for (const fs::path& base : {root, root / "docs", from.parent_path()}) {
    const fs::path p = base / page;
    if (fs::is_regular_file(p)) return p;
  }
  return {};
}

// Heading texts of a Markdown page ("## 2.7 Gated DeltaNet" -> "2.7 Gated DeltaNet").
std::vector<std::string> Headings(const std::string& markdown) {
  static const std::regex heading(R"(#{1,6}[ \t]+(.*?)[ \t]*\r?)");
  std::vector<std::string> out;
  bool in_code = false;
  std::istringstream in(markdown);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    std::smatch m;
    if (!in_code && std::regex_match(line, m, heading)) out.push_back(m[1].str());
  }
  return out;
}

bool HasSection(const std::vector<std::string>& headings, const std::string& number) {
  // "2" matches "2. Language model" or "2 Language model", not "2.1 Embedding".
  for (const std::string& h : headings) {
    if (h.rfind(number, 0) != 0) continue;
    const std::string rest = h.substr(number.size());
    if (rest.empty() || rest[0] == ' ' || (rest[0] == '.' && (rest.size() == 1 || rest[1] == ' ')))
      return true;
  }
  return false;
}

bool HasTitle(const std::vector<std::string>& headings, const std::string& title) {
  return std::any_of(headings.begin(), headings.end(),
                     [&](const std::string& h) { return h.find(title) != std::string::npos; });
}

// What of a file can cite: comments in code, everything in Markdown and Python.
std::string CitingText(const fs::path& file) {
  const std::string text = ReadFile(file), ext = file.extension().string();
  if (ext == ".md" || ext == ".py") return text;
  if (ext == ".sh" || ext == ".cmake" || file.filename() == "CMakeLists.txt") return CommentsOnly(text, "#");
  return CommentsOnly(text, "//");
}

size_t LineCount(const fs::path& p) {
  const std::string text = ReadFile(p);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

// Repository files named by path in code comments (Markdown pages are checked above; a path
// without an extension, a glob or a brace list names no one file and is not checked).
std::vector<std::string> CheckFilePaths(const fs::path& root, const fs::path& file, const std::string& where) {
  static const std::regex path(
      R"((?:^|[\s(`'"])((?:core|kernels|tests|docs|tools|ui|app|server|packaging|resources|cmake)/[A-Za-z0-9_./-]*\.(?:h|cpp|cc|inc|py|sh|cmake|txt|json|mjs|png))(?::([0-9]+))?)");
  std::vector<std::string> problems;
  const std::string ext = file.extension().string();
  if (ext == ".md" || ext == ".py") return problems;
  const std::string text = CitingText(file);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), path); it != std::sregex_iterator(); ++it) {
    const std::string cited = (*it)[1].str();
    const fs::path p = root / cited;
    if (!fs::is_regular_file(p)) {
      problems.push_back(where + cited + " does not exist");
    } else if ((*it)[2].matched && std::stoul((*it)[2].str()) > LineCount(p)) {
      problems.push_back(where + cited + ":" + (*it)[2].str() + " is past the file's end");
    }
  }
  return problems;
}

// Problems with the citations in `file`, one line each.
std::vector<std::string> Check(const fs::path& root, const fs::path& file) {
  const std::string where = fs::relative(file, root).string() + ": ";
  std::vector<std::string> problems = CheckFilePaths(root, file, where);
  for (const Citation& c : FindCitations(CitingText(file))) {
    const fs::path page = Resolve(root, file, c.page);
    if (page.empty()) {
      problems.push_back(where + c.page + " does not exist");
      continue;
    }
    if (c.sections.empty() && c.title.empty()) continue;
    const std::vector<std::string> headings = Headings(ReadFile(page));
    for (const std::string& s : c.sections)
      if (!HasSection(headings, s)) problems.push_back(where + c.page + " has no section " + s);
    if (!c.title.empty() && !HasTitle(headings, c.title))
      problems.push_back(where + c.page + " has no heading \"" + c.title + "\"");
  }
  return problems;
}

bool IsSource(const fs::path& p) {
  static const std::set<std::string> exts = {".h", ".cpp", ".cc", ".inc", ".py", ".sh", ".cmake", ".md", ".txt"};
  const std::string name = p.filename().string();
  if (p.extension() == ".txt") return name == "CMakeLists.txt";
  return exts.count(p.extension().string()) > 0;
}

// A scratch tree for the negative controls.
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("glance_doc_citations_" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(root);
    fs::create_directories(root / "docs");
    fs::create_directories(root / "src");
    std::ofstream(root / "docs" / "model.md") << "# Model\n## 2. Language\n### 2.7 DeltaNet\n"
                                                 "```\n## 9.9 in a code block\n```\n";
    std::ofstream(root / "docs" / "arch.md") << "# Arch\n## Attention capture\n## Timing\n";
    fs::create_directories(root / "core");
    std::ofstream(root / "core" / "b.h") << "1\n2\n3\n";
  }
  ~Scratch() { fs::remove_all(root); }
  std::vector<std::string> CheckText(const std::string& text) const {
    const fs::path f = root / "src" / "a.h";
    std::ofstream(f) << text;
    return Check(root, f);
  }
};

// Citation text is assembled from pieces so this file itself cites nothing.
const std::string kMd = ".md";

TEST(DocCitations, ParsesSectionsRangesAndTitles) {
  const auto c = FindCitations("// see qwen35" + kMd + " §1.1-1.3 and design" + kMd + " \"Attention\n// capture\").");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].page, "qwen35" + kMd);
  EXPECT_EQ(c[0].sections, (std::vector<std::string>{"1.1", "1.3"}));
  EXPECT_EQ(c[1].title, "Attention capture");
}

TEST(DocCitations, ResolvingCitationsPass) {
  Scratch s;
  EXPECT_TRUE(s.CheckText("// (model" + kMd + " §2.7 step 6) and (docs/arch" + kMd + " \"Timing\")\n").empty());
  EXPECT_TRUE(s.CheckText("// model" + kMd + " §2, then arch" + kMd + " \"Attention\n  // capture\"\n").empty());
}

TEST(DocCitations, OnlyCommentsOfCodeCite) {
  Scratch s;
  EXPECT_TRUE(s.CheckText("const char* f = \"export" + kMd + "\";  // model" + kMd + " §2\n").empty());
  // A URL is not a page of this repository; a bare page name is.
  EXPECT_EQ(s.CheckText("int x;  // see https://example.org/missing" + kMd + " and missing" + kMd + "\n").size(), 1u);
}

TEST(DocCitations, NegativeControlsFail) {
  Scratch s;
  EXPECT_EQ(s.CheckText("// missing" + kMd + "\n").size(), 1u);
  EXPECT_EQ(s.CheckText("// model" + kMd + " §2.8\n").size(), 1u);
  EXPECT_EQ(s.CheckText("// model" + kMd + " §9.9 (only inside a code block)\n").size(), 1u);
  EXPECT_EQ(s.CheckText("// model" + kMd + " §2.70\n").size(), 1u);
  EXPECT_EQ(s.CheckText("// docs/arch" + kMd + " \"Sessions\"\n").size(), 1u);
}

TEST(DocCitations, FilePathsInCommentsResolve) {
  Scratch s;
  const std::string kH = ".h";
  EXPECT_TRUE(s.CheckText("// as in core/b" + kH + " and (core/b" + kH + ":3); core/engine/caption_folder, core/lm/*.cpp\n").empty());
  EXPECT_TRUE(s.CheckText("const char* p = \"core/missing" + kH + "\";\n").empty());  // code, not a comment
  // Negative controls: a missing file, a line past the end.
  EXPECT_EQ(s.CheckText("// see core/missing" + kH + "\n").size(), 1u);
  EXPECT_EQ(s.CheckText("// see `core/b" + kH + ":4`\n").size(), 1u);
}

TEST(DocCitations, EveryCitationInTheSourceTreeResolves) {
  const fs::path root = fs::canonical(GLANCE_SOURCE_DIR);
  int files = 0, cited = 0;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    const std::string top = rel.begin()->string();
    // Build trees, git metadata and the golden data are not the project's text.
    if (it->is_directory() && (top == "build" || top[0] == '.' || rel == fs::path("tests/data"))) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !IsSource(it->path())) continue;
    ++files;
    cited += static_cast<int>(FindCitations(CitingText(it->path())).size());
    for (const std::string& p : Check(root, it->path())) ADD_FAILURE() << p;
  }
  std::printf("%d files, %d citations of Markdown pages\n", files, cited);
  EXPECT_GT(files, 100) << "scanned too few files: wrong source dir?";
  EXPECT_GT(cited, 50) << "found too few citations: is the pattern broken?";
}

}  // namespace

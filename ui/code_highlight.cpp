#include "ui/code_highlight.h"

#include <QSet>
#include <QStringList>
#include <algorithm>

namespace glance::ui {
namespace {

// How a language writes comments and strings.
struct Syntax {
  QString line_comment;       // "//", "#", "--"
  bool block_comments = false;  // /* ... */
  bool triple_quotes = false;   // Python's """ and '''
  bool backticks = false;       // JavaScript template strings, shell command substitution
  bool keywords_any_case = false;  // SQL
  const QSet<QString>* keywords = nullptr;
};

QSet<QString> Words(const char* list) {
  QSet<QString> set;
  for (const QString& w : QString::fromLatin1(list).split(QLatin1Char(' '), Qt::SkipEmptyParts)) set.insert(w);
  return set;
}

const QSet<QString>& CLikeKeywords() {  // C, C++, C#, Java, JavaScript, TypeScript, Rust, Go, Kotlin, Swift
  static const QSet<QString> words = Words(
      "if else for while do return switch case default break continue goto class struct enum union "
      "namespace public private protected static const constexpr consteval volatile extern inline "
      "void int long short unsigned signed float double char bool auto true false nullptr NULL null "
      "new delete template typename using virtual override final friend operator sizeof typedef "
      "try catch throw throws finally this super let var function fn pub impl mut match use mod "
      "trait where async await import export from package func go defer chan interface type "
      "extends implements instanceof typeof undefined yield self Self struct val fun when is as in "
      "of string number boolean any unknown never readonly declare");
  return words;
}

const QSet<QString>& PythonKeywords() {
  static const QSet<QString> words = Words(
      "def class return if elif else for while in not and or import from as with try except "
      "finally raise lambda yield pass break continue True False None async await global "
      "nonlocal is del assert match case self print");
  return words;
}

const QSet<QString>& ShellKeywords() {  // sh, bash, zsh; also YAML/TOML/CMake get these few
  static const QSet<QString> words = Words(
      "if then else elif fi for do done while until case esac function return in export local "
      "readonly set unset shift exit echo source true false");
  return words;
}

const QSet<QString>& SqlKeywords() {  // compared in lower case
  static const QSet<QString> words = Words(
      "select from where insert into values update set delete create table drop alter add "
      "column index view join inner left right outer full cross on and or not null is as "
      "group by order having limit offset union all distinct case when then else end in "
      "exists between like primary key foreign references default unique with returning");
  return words;
}

const QSet<QString>& AnyKeywords() {  // no language named
  static const QSet<QString> words = [] {
    QSet<QString> all = CLikeKeywords();
    all.unite(PythonKeywords());
    return all;
  }();
  return words;
}

Syntax SyntaxOf(const QString& language) {
  const QString lang = language.trimmed().toLower().section(QLatin1Char(' '), 0, 0);
  static const QStringList hash = {QStringLiteral("sh"),     QStringLiteral("bash"),  QStringLiteral("zsh"),
                                   QStringLiteral("shell"),  QStringLiteral("console"), QStringLiteral("yaml"),
                                   QStringLiteral("yml"),    QStringLiteral("toml"),  QStringLiteral("ruby"),
                                   QStringLiteral("rb"),     QStringLiteral("perl"),  QStringLiteral("r"),
                                   QStringLiteral("cmake"),  QStringLiteral("make"),  QStringLiteral("makefile"),
                                   QStringLiteral("dockerfile"), QStringLiteral("ini"), QStringLiteral("conf")};
  Syntax s;
  if (lang == QLatin1String("python") || lang == QLatin1String("py") || lang == QLatin1String("python3")) {
    s.line_comment = QStringLiteral("#");
    s.triple_quotes = true;
    s.keywords = &PythonKeywords();
  } else if (hash.contains(lang)) {
    s.line_comment = QStringLiteral("#");
    s.backticks = lang.startsWith(QLatin1String("sh")) || lang.endsWith(QLatin1String("sh"));
    s.keywords = &ShellKeywords();
  } else if (lang == QLatin1String("sql") || lang == QLatin1String("lua") || lang == QLatin1String("haskell") ||
             lang == QLatin1String("hs")) {
    s.line_comment = QStringLiteral("--");
    s.block_comments = lang == QLatin1String("sql");
    s.keywords_any_case = lang == QLatin1String("sql");
    s.keywords = lang == QLatin1String("sql") ? &SqlKeywords() : &CLikeKeywords();
  } else {
    s.line_comment = QStringLiteral("//");
    s.block_comments = true;
    s.backticks = lang == QLatin1String("js") || lang == QLatin1String("javascript") ||
                  lang == QLatin1String("ts") || lang == QLatin1String("typescript") || lang == QLatin1String("go");
    s.keywords = lang.isEmpty() ? &AnyKeywords() : &CLikeKeywords();
  }
  return s;
}

bool IdentStart(QChar c) { return c.isLetter() || c == QLatin1Char('_'); }
bool IdentChar(QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); }

}  // namespace

std::vector<CodeToken> HighlightCode(const QString& code, const QString& language) {
  const Syntax syntax = SyntaxOf(language);
  std::vector<CodeToken> tokens;
  const int n = static_cast<int>(code.size());
  auto at = [&](int i, const QString& s) { return !s.isEmpty() && QStringView(code).mid(i).startsWith(s); };
  int i = 0;
  while (i < n) {
    const QChar c = code[i];
    if (at(i, syntax.line_comment)) {
      int end = static_cast<int>(code.indexOf(QLatin1Char('\n'), i));
      if (end < 0) end = n;
      tokens.push_back({i, end - i, CodeTokenKind::kComment});
      i = end;
    } else if (syntax.block_comments && at(i, QStringLiteral("/*"))) {
      const int close = static_cast<int>(code.indexOf(QStringLiteral("*/"), i + 2));
      const int end = close < 0 ? n : close + 2;
      tokens.push_back({i, end - i, CodeTokenKind::kComment});
      i = end;
    } else if (syntax.triple_quotes && (at(i, QStringLiteral("\"\"\"")) || at(i, QStringLiteral("'''")))) {
      const int close = static_cast<int>(code.indexOf(code.mid(i, 3), i + 3));
      const int end = close < 0 ? n : close + 3;
      tokens.push_back({i, end - i, CodeTokenKind::kString});
      i = end;
    } else if (c == QLatin1Char('"') || c == QLatin1Char('\'') || (syntax.backticks && c == QLatin1Char('`'))) {
      // To the closing quote on the same line (a backtick string may span lines), past escapes.
      int j = i + 1;
      while (j < n && code[j] != c && (c == QLatin1Char('`') || code[j] != QLatin1Char('\n')))
        j += code[j] == QLatin1Char('\\') ? 2 : 1;
      const int end = std::min(n, j < n && code[j] == c ? j + 1 : j);
      tokens.push_back({i, end - i, CodeTokenKind::kString});
      i = end;
    } else if (c.isDigit() && (i == 0 || !IdentChar(code[i - 1]))) {
      int j = i + 1;  // 42, 0x1F, 3.14, 1e-9, 1_000, 10u
      while (j < n && (IdentChar(code[j]) || code[j] == QLatin1Char('.') ||
                       ((code[j] == QLatin1Char('-') || code[j] == QLatin1Char('+')) &&
                        (code[j - 1] == QLatin1Char('e') || code[j - 1] == QLatin1Char('E')))))
        ++j;
      tokens.push_back({i, j - i, CodeTokenKind::kNumber});
      i = j;
    } else if (IdentStart(c)) {
      int j = i + 1;
      while (j < n && IdentChar(code[j])) ++j;
      const QString word = code.mid(i, j - i);
      if (syntax.keywords && syntax.keywords->contains(syntax.keywords_any_case ? word.toLower() : word))
        tokens.push_back({i, j - i, CodeTokenKind::kKeyword});
      i = j;
    } else {
      ++i;
    }
  }
  return tokens;
}

QColor CodeTokenColor(CodeTokenKind kind, const QPalette& palette) {
  const bool dark = palette.color(QPalette::Base).lightness() < 128;
  switch (kind) {
    case CodeTokenKind::kKeyword: return dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x0b, 0x4f, 0xb3);
    case CodeTokenKind::kString: return dark ? QColor(0x9c, 0xd6, 0x8f) : QColor(0x06, 0x7d, 0x17);
    case CodeTokenKind::kComment: return palette.color(QPalette::PlaceholderText);
    case CodeTokenKind::kNumber: return dark ? QColor(0xf0, 0xa8, 0x68) : QColor(0x9a, 0x3e, 0x00);
  }
  return palette.color(QPalette::Text);
}

}  // namespace glance::ui

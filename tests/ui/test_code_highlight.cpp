// Code blocks in answers are coloured (issue 34): comments, strings, numbers and keywords by the
// fence's language; the spans are checked against hand-counted offsets.
#include <QtTest>
#include <cstdlib>

#include "ui/code_highlight.h"

using glance::ui::CodeToken;
using glance::ui::CodeTokenKind;
using glance::ui::HighlightCode;

namespace {

// "kind:text" for each span, to read failures at a glance.
QStringList Spans(const QString& code, const QString& language) {
  QStringList out;
  for (const CodeToken& t : HighlightCode(code, language)) {
    const char* kind = t.kind == CodeTokenKind::kKeyword ? "kw"
                       : t.kind == CodeTokenKind::kString ? "str"
                       : t.kind == CodeTokenKind::kComment ? "com"
                                                           : "num";
    out << QString::fromLatin1(kind) + QLatin1Char(':') + code.mid(t.start, t.length);
  }
  return out;
}

QStringList Expect(std::initializer_list<const char*> spans) {
  QStringList out;
  for (const char* span : spans) out << QString::fromUtf8(span);
  return out;
}

}  // namespace

class TestCodeHighlight : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void cppKeywordsStringsNumbersAndComments() {
    const QString code = QStringLiteral("int x = 0x1F; // hex\nreturn \"a\\\"b\" + 3.5e-2; /* two\nlines */ y");
    QCOMPARE(Spans(code, QStringLiteral("cpp")),
             Expect({"kw:int", "num:0x1F", "com:// hex", "kw:return", "str:\"a\\\"b\"", "num:3.5e-2",
                          "com:/* two\nlines */"}));
    // Offsets are into the joined text: the comment starts at 14.
    QCOMPARE(HighlightCode(code, QStringLiteral("cpp"))[2], (CodeToken{14, 6, CodeTokenKind::kComment}));
  }

  void pythonUsesHashAndTripleQuotes() {
    const QString code = QStringLiteral("def f(x):  # doc\n    s = '''a\n# not a comment'''\n    return None");
    QCOMPARE(Spans(code, QStringLiteral("Python")),
             Expect({"kw:def", "com:# doc", "str:'''a\n# not a comment'''", "kw:return", "kw:None"}));
    // Control: as C++ the same text has no '#' comments and no triple quotes.
    QVERIFY(!Spans(code, QStringLiteral("cpp")).contains(QStringLiteral("com:# doc")));
  }

  void sqlIsCaseInsensitiveWithDashComments() {
    QCOMPARE(Spans(QStringLiteral("SELECT name FROM t -- all\nWHERE id = 7"), QStringLiteral("sql")),
             Expect({"kw:SELECT", "kw:FROM", "com:-- all", "kw:WHERE", "num:7"}));
  }

  void shellAndUnknownLanguages() {
    QCOMPARE(Spans(QStringLiteral("echo \"$HOME\" # where\nexit 1"), QStringLiteral("bash")),
             Expect({"kw:echo", "str:\"$HOME\"", "com:# where", "kw:exit", "num:1"}));
    // No language: C-style comments and every common keyword; digits inside a name are no number.
    QCOMPARE(Spans(QStringLiteral("let v2 = 'x' // c"), QString()), Expect({"kw:let", "str:'x'", "com:// c"}));
    // An unterminated string stops at the end of its line.
    QCOMPARE(Spans(QStringLiteral("s = \"open\nnext"), QStringLiteral("c")), Expect({"str:\"open"}));
    QVERIFY(HighlightCode(QString(), QStringLiteral("cpp")).empty());
  }

  void coloursDifferFromTextInBothThemes() {
    QPalette light, dark;
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::Text, Qt::black);
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    for (const QPalette& p : {light, dark})
      for (CodeTokenKind kind : {CodeTokenKind::kKeyword, CodeTokenKind::kString, CodeTokenKind::kNumber}) {
        const QColor c = glance::ui::CodeTokenColor(kind, p);
        QVERIFY(c != p.color(QPalette::Text));
        // Readable: at least 60 grey levels from the background.
        QVERIFY2(std::abs(c.lightness() - p.color(QPalette::Base).lightness()) >= 60, qPrintable(c.name()));
      }
  }
};

QTEST_MAIN(TestCodeHighlight)
#include "test_code_highlight.moc"

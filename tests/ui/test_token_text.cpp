// A generated token as the attention panel shows it (issue 34: a newline token broke the live
// caption over two lines): one line always, whitespace drawn, never empty.
#include <QtTest>

#include "ui/token_text.h"

using glance::ui::ChipText;
using glance::ui::VisibleToken;

class TestTokenText : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void liveTokenStaysOnOneLine() {
    QCOMPARE(VisibleToken(" cat"), QStringLiteral(" cat"));
    QCOMPARE(VisibleToken(".\n\n"), QStringLiteral(".\u21B5\u21B5"));
    QCOMPARE(VisibleToken("\tx"), QStringLiteral("\u21E5x"));
    QVERIFY(!VisibleToken("a\nb").contains(QLatin1Char('\n')));
    QCOMPARE(VisibleToken("\n"), QStringLiteral("\u21B5"));  // a lone newline is seen, not blank
    QCOMPARE(VisibleToken("  "), QStringLiteral("\u2423"));
    QCOMPARE(VisibleToken(""), QStringLiteral("\u2423"));
  }

  void chipsAreTrimmedAndNeverEmpty() {
    QCOMPARE(ChipText(" cat "), QStringLiteral("cat"));
    QCOMPARE(ChipText("\n"), QStringLiteral("\u2423"));
    QCOMPARE(ChipText("caf\xc3\xa9"), QStringLiteral("caf\u00e9"));  // UTF-8
  }
};

QTEST_MAIN(TestTokenText)
#include "test_token_text.moc"

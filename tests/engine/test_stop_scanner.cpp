// StopScanner (core/engine/stop_scanner.h): the one implementation of stop sequences, used by
// Session for the server's `stop` and the desktop app's Settings and chat presets.
#include <gtest/gtest.h>

#include "core/engine/stop_scanner.h"
#include "core/util/error.h"

using glance::StopScanner;

TEST(StopScanner, HoldsBackPrefixesAndCutsAtTheStop) {
  StopScanner s({"END", "\n\n"});
  EXPECT_EQ(s.Push("hello E"), "hello ");
  EXPECT_EQ(s.Push("N"), "");
  EXPECT_EQ(s.Push("x"), "ENx");
  EXPECT_EQ(s.Push(" a\n"), " a");
  EXPECT_EQ(s.Push("\nrest"), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.released(), std::string("hello ENx a").size());
  EXPECT_EQ(s.Push("more"), "");
  EXPECT_EQ(s.Flush(), "");
  StopScanner none({});
  EXPECT_EQ(none.Push("E"), "E");
  EXPECT_FALSE(none.stopped());
  StopScanner tail({"END"});
  EXPECT_EQ(tail.Push("xEN"), "x");
  EXPECT_EQ(tail.Flush(), "EN");
  EXPECT_EQ(tail.released(), 3u);
  EXPECT_FALSE(tail.stopped());
}

TEST(StopScanner, EmptyStopStringsAreIgnoredAndTheEarliestStopWins) {
  StopScanner s({"", "b c", "c"});
  EXPECT_EQ(s.Push("a "), "a ");  // "" would have matched at 0
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.Push("xb c d"), "x");  // "b c" starts before "c"
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.released(), 3u);
}

TEST(StopLines, OneALineWithEscapesAndTheInverse) {
  using glance::ParseStopLines;
  using glance::StopLines;
  EXPECT_EQ(ParseStopLines(""), std::vector<std::string>{});
  EXPECT_EQ(ParseStopLines("END\n\n\\n\\n\r\nUser:\nC:\\\\dir\ta\\tb"),
            (std::vector<std::string>{"END", "\n\n", "User:", "C:\\dir\ta\tb"}));
  const std::vector<std::string> stops = {"END", "\n\n", " ", "a\\n", "tab\t"};
  EXPECT_EQ(StopLines(stops), "END\n\\n\\n\n \na\\\\n\ntab\\t");
  EXPECT_EQ(ParseStopLines(StopLines(stops)), stops);
}

TEST(StopLines, BadLinesAreOneLineErrorsNamingTheLine) {
  auto error_of = [](const std::string& text) {
    try {
      glance::ParseStopLines(text);
    } catch (const glance::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("ok\n\nbad \\q"), "line 3: unknown escape \\q; use \\n, \\t or \\\\");
  EXPECT_EQ(error_of("tail\\"), "line 1: ends with a lone \\; write \\\\ for a backslash");
  EXPECT_EQ(error_of(std::string(300, 'x')), "line 1: the stop sequence is 300 bytes long; at most 256");
  std::string many;
  for (int i = 0; i < 17; ++i) {
    many += 's';
    many += std::to_string(i);
    many += '\n';
  }
  EXPECT_EQ(error_of(many), "more than 16 stop sequences");
  EXPECT_THROW(glance::ValidateStopSequences({"a", ""}), glance::Error);
  EXPECT_NO_THROW(glance::ValidateStopSequences({"a", "\n"}));
}

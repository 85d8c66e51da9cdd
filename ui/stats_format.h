#pragma once
// The one way the stats (the answer's stats line, the Timing panel, the live rate) write
// numbers (issue 34: "1.2 s" beside "1,234 ms", decimals that changed from line to line). Every
// number goes through QLocale() (the user's separators: "1,234.5" in English, "1.234,5" in
// German), and each kind of number has one form:
//   counts     whole, grouped                  "1,234 tok"
//   durations  under 10 ms: one decimal        "4.2 ms"
//              10 ms to 1 s: whole ms          "850 ms"
//              1 s and more: seconds, 2 places "1.23 s", "61.50 s"
//   rates      one decimal, grouped            "1,234.5 tok/s", "9.0 tok/s"
//   shares     whole percent                   "67%"
//   ratios     two decimals                    "1.67"
//   weights    three significant digits        "0.173", "0.00196" (attention weights)
//   percents   one decimal, "%" after a space  "12.5 %" (a map's or a head's share)
// GUI thread (reads the default QLocale).
#include <QString>

namespace glance::ui {

QString FormatCount(qint64 n);
QString FormatDuration(double seconds);
QString FormatRate(double perSecond, const QString& unit);  // "12.3 tok/s"
QString FormatShare(double fraction);                       // 0.667 -> "67%"
QString FormatRatio(double value);                          // "1.67"
QString FormatWeight(double value);                         // "0.173"
QString FormatPercent(double fraction);                     // 0.125 -> "12.5 %"

}  // namespace glance::ui

// The translations cannot rot silently (issue 34). For each resources/translations/*.ts (the
// languages' files, and plurals_en.ts with the English plural forms of the numerus messages):
//  - every message is translated (no "unfinished", no empty translation or plural form), with the
//    source's placeholders (%1..%99, %L1, %n) and, where the source has one, a mnemonic (&);
//  - lupdate run on a copy of it over today's sources finds nothing new or changed to translate;
//  - no string literal in those sources has a hex digit right after a \uXXXX escape, which
//    lupdate 6.4 reads as part of the escape (the .ts then holds a different source text than
//    tr() asks for at run time, and the translation is never found).
// On failure: cmake --build build/release --target update_translations, translate what is
// marked unfinished (linguist6 resources/translations/glance_de.ts, or by hand), commit the .ts.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

const QString kHowToFix = QStringLiteral(
    "\nRun `cmake --build build/release --target update_translations` (lupdate), translate the "
    "messages it marks unfinished (Qt Linguist: linguist6 FILE.ts, or by hand: a <translation> "
    "without type=\"unfinished\"), keep the placeholders and a mnemonic '&', and commit the .ts.");

struct Message {
  QString context, source;
  QStringList translations;  // one, or one per plural form
  bool numerus = false, unfinished = false, obsolete = false;
};

// Every <message> of a .ts file; `error` says why it could not be read.
QList<Message> ReadTs(const QString& path, QString* error) {
  QList<Message> messages;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("cannot open %1: %2").arg(path, file.errorString());
    return {};
  }
  QXmlStreamReader xml(&file);
  QString context;
  Message m;
  while (!xml.atEnd()) {
    xml.readNext();
    if (!xml.isStartElement()) continue;
    const auto name = xml.name();
    if (name == QLatin1String("name")) {
      context = xml.readElementText();
    } else if (name == QLatin1String("message")) {
      m = Message{};
      m.context = context;
      m.numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
    } else if (name == QLatin1String("source")) {
      m.source = xml.readElementText();
    } else if (name == QLatin1String("translation")) {
      const auto type = xml.attributes().value(QLatin1String("type"));
      m.unfinished = type == QLatin1String("unfinished");
      m.obsolete = type == QLatin1String("obsolete") || type == QLatin1String("vanished");
      if (m.numerus) {
        while (xml.readNextStartElement())
          if (xml.name() == QLatin1String("numerusform"))
            m.translations << xml.readElementText();
          else
            xml.skipCurrentElement();
      } else {
        m.translations << xml.readElementText();
      }
      messages << m;
    }
  }
  if (xml.hasError())
    *error = QStringLiteral("%1:%2: %3").arg(path).arg(xml.lineNumber()).arg(xml.errorString());
  return messages;
}

QStringList Placeholders(const QString& text) {
  static const QRegularExpression re(QStringLiteral("%L?(\\d{1,2})|%n"));
  QStringList found;
  for (auto it = re.globalMatch(text); it.hasNext();) found << it.next().captured(0);
  found.sort();
  return found;
}

// Mnemonics: '&' before a letter or digit, "&&" being a literal ampersand. HTML entities
// ("&lt;") are not mnemonics.
int Mnemonics(QString text) {
  text.replace(QStringLiteral("&&"), QString());
  static const QRegularExpression entity(QStringLiteral("&[a-z]+;|&#\\d+;"));
  text.remove(entity);
  static const QRegularExpression re(QStringLiteral("&\\w"), QRegularExpression::UseUnicodePropertiesOption);
  return static_cast<int>(text.count(re));
}

QString Show(const Message& m) {
  return QStringLiteral("[%1] \"%2\"").arg(m.context, m.source.left(80));
}

// What is wrong with the messages of one file, one line each.
QStringList Problems(const QList<Message>& messages) {
  QStringList problems;
  for (const Message& m : messages) {
    if (m.obsolete) continue;
    if (m.unfinished) {
      problems << QStringLiteral("unfinished: ") + Show(m);
      continue;
    }
    if (m.translations.isEmpty() || (m.numerus && m.translations.size() < 2)) {
      problems << QStringLiteral("missing plural forms: ") + Show(m);
      continue;
    }
    for (const QString& t : m.translations) {
      if (t.trimmed().isEmpty() && !m.source.trimmed().isEmpty()) {
        problems << QStringLiteral("empty translation: ") + Show(m);
        break;
      }
      if (Placeholders(t) != Placeholders(m.source)) {
        problems << QStringLiteral("placeholders %1 in \"%2\", the source has %3: %4")
                        .arg(Placeholders(t).join(QLatin1Char(' ')), t.left(80),
                             Placeholders(m.source).join(QLatin1Char(' ')), Show(m));
        break;
      }
      if (Mnemonics(m.source) > 0 && Mnemonics(t) != 1) {
        problems << QStringLiteral("the source has a mnemonic (&) but \"%1\" has %2: %3")
                        .arg(t).arg(Mnemonics(t)).arg(Show(m));
        break;
      }
    }
  }
  return problems;
}

QStringList TsFiles() {
  return QString::fromUtf8(GLANCE_TS_FILES).split(QLatin1Char('|'), Qt::SkipEmptyParts);
}

// The languages' files and the English plural forms (which hold only numerus messages).
QStringList AllTsFiles() { return TsFiles() << QStringLiteral(GLANCE_PLURALS_TS); }
bool IsPluralsOnly(const QString& ts) { return ts == QStringLiteral(GLANCE_PLURALS_TS); }

}  // namespace

class TestTranslationFiles : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // The checker itself, on a small file with one of each mistake (the negative control).
  void checkerFindsEachMistake() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.ts"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    // (No raw string literal: moc would not see the class after one.)
    f.write(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        "<!DOCTYPE TS>\n"
        "<TS version=\"2.1\" language=\"de_DE\">\n"
        "<context><name>C</name>\n"
        "<message><source>Good %1</source><translation>Gut %1</translation></message>\n"
        "<message><source>&amp;File</source><translation>&amp;Datei</translation></message>\n"
        "<message><source>a &lt;b&gt; &amp;&amp; c</source><translation>a &lt;b&gt; &amp;&amp; c</translation></message>\n"
        "<message><source>New</source><translation type=\"unfinished\"></translation></message>\n"
        "<message><source>Empty</source><translation></translation></message>\n"
        "<message><source>Row %1, col %2</source><translation>Zeile %1</translation></message>\n"
        "<message><source>&amp;Quit</source><translation>Beenden</translation></message>\n"
        "<message numerus=\"yes\"><source>%n file(s)</source><translation><numerusform>%n Datei</numerusform><numerusform>Dateien</numerusform></translation></message>\n"
        "<message><source>Gone</source><translation type=\"vanished\">Weg</translation></message>\n"
        "</context>\n"
        "</TS>\n");
    f.close();
    QString error;
    const QList<Message> messages = ReadTs(path, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(messages.size(), 9);
    const QStringList problems = Problems(messages);
    QCOMPARE(problems.size(), 5);
    QVERIFY(problems[0].startsWith(QStringLiteral("unfinished: [C] \"New\"")));
    QVERIFY(problems[1].startsWith(QStringLiteral("empty translation: [C] \"Empty\"")));
    QVERIFY(problems[2].contains(QStringLiteral("Row %1, col %2")));
    QVERIFY(problems[3].contains(QStringLiteral("mnemonic")));
    QVERIFY(problems[4].contains(QStringLiteral("%n file(s)")));
  }

  void committedFilesAreComplete() {
    QVERIFY(!TsFiles().isEmpty());
    for (const QString& ts : AllTsFiles()) {
      QString error;
      const QList<Message> messages = ReadTs(ts, &error);
      QVERIFY2(error.isEmpty(), qPrintable(error));
      const qsizetype least = IsPluralsOnly(ts) ? 10 : 100;
      QVERIFY2(messages.size() > least, qPrintable(QStringLiteral("%1: only %2 messages").arg(ts).arg(messages.size())));
      if (IsPluralsOnly(ts))
        for (const Message& m : messages) QVERIFY2(m.numerus, qPrintable(QStringLiteral("not a plural: ") + Show(m)));
      const QStringList problems = Problems(messages);
      QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1: %2 problem(s):\n  %3%4")
                                                  .arg(ts).arg(problems.size())
                                                  .arg(problems.mid(0, 20).join(QStringLiteral("\n  ")), kHowToFix)));
      qInfo("%s: %lld messages, all translated", qPrintable(QFileInfo(ts).fileName()),
            static_cast<long long>(messages.size()));
    }
  }

  // lupdate over today's sources, on a copy: a string added or changed since the .ts was last
  // refreshed shows up as unfinished.
  void sourcesHaveNothingUntranslated() {
    QTemporaryDir dir;
    for (const QString& ts : AllTsFiles()) {
      const QString copy = dir.filePath(QFileInfo(ts).fileName());
      QFile::remove(copy);
      QVERIFY(QFile::copy(ts, copy));
      QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
      QProcess lupdate;
      lupdate.setProcessChannelMode(QProcess::MergedChannels);
      QStringList args = QString::fromUtf8(GLANCE_LUPDATE_OPTIONS).split(QLatin1Char('|'), Qt::SkipEmptyParts);
      if (IsPluralsOnly(ts)) args << QStringLiteral("-pluralonly");
      args << QStringLiteral("@") + QStringLiteral(GLANCE_TR_SOURCE_LIST) << QStringLiteral("-ts") << copy;
      lupdate.start(QStringLiteral(GLANCE_LUPDATE), args);
      QVERIFY2(lupdate.waitForFinished(120000), "lupdate did not finish");
      const QString output = QString::fromLocal8Bit(lupdate.readAll());
      QVERIFY2(lupdate.exitStatus() == QProcess::NormalExit && lupdate.exitCode() == 0, qPrintable(output));
      QString error;
      const QList<Message> messages = ReadTs(copy, &error);
      QVERIFY2(error.isEmpty(), qPrintable(error));
      QStringList unfinished;
      for (const Message& m : messages)
        if (m.unfinished && !m.obsolete) unfinished << Show(m);
      QVERIFY2(unfinished.isEmpty(),
               qPrintable(QStringLiteral("%1 is behind the sources: %2 message(s) new or changed:\n  %3%4")
                              .arg(ts).arg(unfinished.size())
                              .arg(unfinished.mid(0, 20).join(QStringLiteral("\n  ")), kHowToFix)));
    }
  }

  void noHexDigitAfterUnicodeEscape() {
    QFile list(QStringLiteral(GLANCE_TR_SOURCE_LIST));
    QVERIFY2(list.open(QIODevice::ReadOnly), qPrintable(list.fileName()));
    static const QRegularExpression literal(QStringLiteral("\"(?:[^\"\\\\\\n]|\\\\.)*\""));
    static const QRegularExpression bad(QStringLiteral("\\\\u[0-9A-Fa-f]{4}[0-9A-Fa-f]"));
    QStringList found;
    int files = 0;
    for (const QByteArray& line : list.readAll().split('\n')) {
      const QString path = QString::fromUtf8(line.trimmed());
      if (path.isEmpty() || !QFileInfo::exists(path)) continue;
      QFile source(path);
      QVERIFY2(source.open(QIODevice::ReadOnly), qPrintable(path));
      ++files;
      int lineNo = 0;
      for (const QByteArray& code : source.readAll().split('\n')) {
        ++lineNo;
        for (auto it = literal.globalMatch(QString::fromUtf8(code)); it.hasNext();) {
          const QString s = it.next().captured(0);
          if (s.contains(bad)) found << QStringLiteral("%1:%2: %3").arg(path).arg(lineNo).arg(s.left(60));
        }
      }
    }
    QVERIFY(files > 10);
    QVERIFY2(found.isEmpty(),
             qPrintable(QStringLiteral("lupdate reads a hex digit after \\uXXXX as part of the escape; split the "
                                       "literal there (\"2\\u00D7\" \"2\" for 2x2):\n  ") +
                        found.join(QStringLiteral("\n  "))));
  }
};

QTEST_GUILESS_MAIN(TestTranslationFiles)
#include "test_translation_files.moc"

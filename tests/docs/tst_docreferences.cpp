// What the docs name exists: every repository path, link and installed file
// they cite, and every `baton COMMAND --option` they show, checked against
// the source tree and the built `baton` (its `help` and `COMMAND --help`).
// A reader who types what a page says must not meet "no such file" or
// "unknown option".

#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

namespace {

const QString sourceDir = QStringLiteral(BATON_SOURCE_DIR);

// The pages a user reads: the README, the tutorial, the explanation of the
// safety model, the dashboard's page, and every how-to and reference page
// (found, not listed, so that a new page is read too). contract.md,
// reliability.md, testing.md and benchmarks.md are the team's (rules and the
// tests that prove them, holes closed, how the suite runs, measurements) and
// architecture.md the contributors' map of the code: their repository paths
// are checked, not their command lines, which quote tests' invocations.
const QStringList teamDocs {QStringLiteral("docs/architecture.md"), QStringLiteral("docs/contract.md"),
                            QStringLiteral("docs/reliability.md"), QStringLiteral("docs/testing.md"),
                            QStringLiteral("docs/benchmarks.md")};

QStringList markdownUnder(const QString &folder)
{
    QStringList pages;
    QDirIterator it(sourceDir + QLatin1Char('/') + folder, {QStringLiteral("*.md")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        pages << QDir(sourceDir).relativeFilePath(it.next());
    pages.sort();
    return pages;
}

QStringList userDocs()
{
    QStringList pages {QStringLiteral("README.md"), QStringLiteral("CHANGELOG.md")};
    for (const QString &page : markdownUnder(QStringLiteral("docs")))
        if (!teamDocs.contains(page) && !page.startsWith(QLatin1String("docs/api/")))
            pages << page;
    return pages;
}

QString readSource(const QString &path)
{
    QFile file(sourceDir + QLatin1Char('/') + path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

bool existsInTree(const QString &path)
{
    // A pattern (translations/baton_*.ts): something matches it.
    if (path.contains(QLatin1Char('*'))) {
        const QString folder = path.section(QLatin1Char('/'), 0, -2);
        const QString pattern = path.section(QLatin1Char('/'), -1);
        return !QDir(sourceDir + QLatin1Char('/') + folder).entryList({pattern}).isEmpty();
    }
    // A test is often named without its extension (tests/kube/tst_kubernetesmanifests).
    for (const char *suffix : {"", ".cpp", ".h", ".cmake", ".sh"})
        if (QFileInfo::exists(sourceDir + QLatin1Char('/') + path + QLatin1String(suffix)))
            return true;
    return false;
}

/*! Paths that start with a top-level folder of the tree, wherever they stand
 * (prose, code, a command line), except inside a URL or a longer path. */
QStringList repositoryPaths(const QString &text)
{
    static const QRegularExpression path(QStringLiteral(
            "(?<![\\w/.@~-])((?:resources|docs|scripts|tests|examples|headless|libcluster|app|gui|cmake|"
            "translations)/[A-Za-z0-9_./@+*-]*)"));
    static const QRegularExpression placeholder(QStringLiteral("/[A-Z][A-Z_]*(/|$)"));
    QStringList found;
    for (const QRegularExpressionMatch &m : path.globalMatch(text)) {
        QString p = m.captured(1);
        while (p.endsWith(QLatin1Char('.')))
            p.chop(1);
        // An ellipsis or a placeholder (tests/fuzz/corpus/NAME/): a pattern.
        if (p.contains(QLatin1String("...")) || p.contains(placeholder))
            continue;
        found << p;
    }
    return found;
}

/*! The text inside `code spans` and fenced code blocks, one command a line:
 * a line ending with a backslash goes on with the next. */
QStringList codeLines(const QString &markdown)
{
    QStringList lines;
    bool fenced = false;
    QString pending;
    static const QRegularExpression span(QStringLiteral("`([^`\\n]+)`"));
    static const QRegularExpression comment(QStringLiteral("(^|\\s)#.*$"));
    for (const QString &line : markdown.split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1String("```"))) {
            fenced = !fenced;
            continue;
        }
        if (fenced) {
            // A comment of the shell, CMake or YAML says what the line does.
            pending += QString(line).remove(comment);
            if (pending.endsWith(QLatin1Char('\\'))) {
                pending.chop(1);
                continue;
            }
            lines << pending;
            pending.clear();
            continue;
        }
        for (const QRegularExpressionMatch &m : span.globalMatch(line))
            lines << m.captured(1);
    }
    return lines;
}

/*! The anchors a Markdown page's headings get, as GitHub makes them: lower
 * case, punctuation but `-` and `_` dropped, spaces made `-`. Headings in
 * fenced code are a shell's comments, not headings. */
QSet<QString> headingAnchors(const QString &markdown)
{
    QSet<QString> anchors;
    static const QRegularExpression heading(QStringLiteral("^#+\\s+(.*)$"));
    static const QRegularExpression punctuation(QStringLiteral("[^\\w\\- ]"));
    bool fenced = false;
    for (const QString &line : markdown.split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1String("```")))
            fenced = !fenced;
        const QRegularExpressionMatch m = heading.match(line);
        if (fenced || !m.hasMatch())
            continue;
        anchors.insert(m.captured(1).trimmed().toLower().remove(punctuation).replace(QLatin1Char(' '), QLatin1Char('-')));
    }
    return anchors;
}

/*! What `baton ARGUMENTS` prints on stdout; empty when it fails. */
QString batonSays(const QStringList &arguments)
{
    QProcess baton;
    baton.start(baton::test::batonBinary(), arguments);
    if (!baton.waitForFinished(30000) || baton.exitStatus() != QProcess::NormalExit || baton.exitCode() != 0)
        return {};
    return QString::fromUtf8(baton.readAllStandardOutput());
}

} // namespace

class TestDocReferences : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyRepositoryPathTheDocsNameExists_data();
    void everyRepositoryPathTheDocsNameExists();
    void everyLinkOfAPageLeadsToAFile_data();
    void everyLinkOfAPageLeadsToAFile();
    void everySectionALinkNamesIsThere_data();
    void everySectionALinkNamesIsThere();
    void everyInstalledDocumentTheyNameIsInstalled_data();
    void everyInstalledDocumentTheyNameIsInstalled();
    void everyLinkOfAnInstalledPageLeadsToAnInstalledPage_data();
    void everyLinkOfAnInstalledPageLeadsToAnInstalledPage();
    void everyBatonCommandAndOptionTheDocsShowExists_data();
    void everyBatonCommandAndOptionTheDocsShowExists();
    void theImageTheManifestsRunIsTheOneTheDocsBuild();

private:
    QHash<QString, QSet<QString>> m_options; // command -> its options, from its --help
};

void TestDocReferences::initTestCase()
{
    QVERIFY2(!baton::test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    const QString usage = batonSays({QStringLiteral("help")});
    QVERIFY2(!usage.isEmpty(), "baton help failed");
    // The commands, as `baton help` lists them: two spaces, then the word.
    const QString commands = usage.section(QStringLiteral("Commands:"), 1).section(QStringLiteral("\n\n"), 0, 0);
    static const QRegularExpression commandLine(QStringLiteral("(?m)^  ([a-z][a-z-]*)(?=\\s|$)"));
    static const QRegularExpression option(QStringLiteral("(?<![\\w-])(--?[A-Za-z][A-Za-z-]*)"));
    static const QRegularExpression optionLine(QStringLiteral("(?m)^\\s+(-[^\\n]*)$"));
    for (const QRegularExpressionMatch &m : commandLine.globalMatch(commands)) {
        const QString command = m.captured(1);
        if (m_options.contains(command))
            continue;
        QSet<QString> &options = m_options[command];
        if (command == QLatin1String("help"))
            continue;
        const QString help = batonSays({command, QStringLiteral("--help")});
        QVERIFY2(!help.isEmpty(), qPrintable(QStringLiteral("baton %1 --help failed").arg(command)));
        for (const QRegularExpressionMatch &line : optionLine.globalMatch(help))
            for (const QRegularExpressionMatch &o : option.globalMatch(line.captured(1).section(QStringLiteral("  "), 0, 0)))
                options.insert(o.captured(1));
    }
    QVERIFY2(m_options.contains(QStringLiteral("join")) && m_options.contains(QStringLiteral("status")),
             qPrintable(usage));
    QVERIFY2(m_options[QStringLiteral("join")].contains(QStringLiteral("--exec")), "join --help lists no --exec");
}

void TestDocReferences::everyRepositoryPathTheDocsNameExists_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &doc : userDocs() + teamDocs)
        QTest::newRow(qPrintable(doc)) << doc;
    // The page and the messages of the binary name files of the tree too.
    QTest::newRow("cmake/BatonManual.cmake") << QStringLiteral("cmake/BatonManual.cmake");
    for (const char *dir : {"libcluster/src", "headless", "app", "gui"}) {
        QDirIterator it(sourceDir + QLatin1Char('/') + QLatin1String(dir), {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = QDir(sourceDir).relativeFilePath(it.next());
            QTest::newRow(qPrintable(path)) << path;
        }
    }
}

void TestDocReferences::everyRepositoryPathTheDocsNameExists()
{
    // O3: a path a reader is told to open or apply is there.
    QFETCH(QString, file);
    const QString text = readSource(file);
    QVERIFY2(!text.isEmpty(), qPrintable(file));
    QStringList missing;
    for (const QString &path : repositoryPaths(text))
        if (!existsInTree(path))
            missing << path;
    missing.removeDuplicates();
    QVERIFY2(missing.isEmpty(), qPrintable(file + QLatin1String(" names what the tree lacks: ") + missing.join(QLatin1String(", "))));
}

void TestDocReferences::everyLinkOfAPageLeadsToAFile_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &doc : userDocs() + teamDocs)
        QTest::newRow(qPrintable(doc)) << doc;
}

void TestDocReferences::everyLinkOfAPageLeadsToAFile()
{
    // O3: a relative Markdown link is a file next to the page.
    QFETCH(QString, file);
    static const QRegularExpression link(QStringLiteral("\\]\\(([^)\\s#]+)(?:#[^)]*)?\\)"));
    const QString folder = QFileInfo(sourceDir + QLatin1Char('/') + file).path();
    QStringList broken;
    for (const QRegularExpressionMatch &m : link.globalMatch(readSource(file))) {
        const QString target = m.captured(1);
        if (target.contains(QLatin1String("://")) || target.startsWith(QLatin1String("mailto:")))
            continue;
        if (!QFileInfo::exists(folder + QLatin1Char('/') + target))
            broken << target;
    }
    QVERIFY2(broken.isEmpty(), qPrintable(file + QLatin1String(" links to nothing: ") + broken.join(QLatin1String(", "))));
}

void TestDocReferences::everySectionALinkNamesIsThere_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &doc : userDocs() + teamDocs)
        QTest::newRow(qPrintable(doc)) << doc;
}

void TestDocReferences::everySectionALinkNamesIsThere()
{
    // O3: a link to a section (page.md#section, or #section on the page
    // itself) lands on a heading of that page, not on its top.
    QFETCH(QString, file);
    static const QRegularExpression link(QStringLiteral("\\]\\(([^)\\s#]*)#([^)\\s]+)\\)"));
    const QString folder = QFileInfo(sourceDir + QLatin1Char('/') + file).path();
    QStringList broken;
    for (const QRegularExpressionMatch &m : link.globalMatch(readSource(file))) {
        const QString target = m.captured(1);
        if (target.contains(QLatin1String("://")) || !(target.isEmpty() || target.endsWith(QLatin1String(".md"))))
            continue;
        QFile page(target.isEmpty() ? sourceDir + QLatin1Char('/') + file : folder + QLatin1Char('/') + target);
        if (!page.open(QIODevice::ReadOnly))
            continue; // everyLinkOfAPageLeadsToAFile says so
        if (!headingAnchors(QString::fromUtf8(page.readAll())).contains(m.captured(2)))
            broken << target + QLatin1Char('#') + m.captured(2);
    }
    QVERIFY2(broken.isEmpty(), qPrintable(file + QLatin1String(" links to no such section: ") + broken.join(QLatin1String(", "))));
}

void TestDocReferences::everyInstalledDocumentTheyNameIsInstalled_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &doc : userDocs())
        QTest::newRow(qPrintable(doc)) << doc;
    QTest::newRow("cmake/BatonManual.cmake") << QStringLiteral("cmake/BatonManual.cmake");
    for (const QString &unit : QDir(sourceDir + QLatin1String("/resources/systemd")).entryList(QDir::Files))
        QTest::newRow(qPrintable(unit)) << QStringLiteral("resources/systemd/") + unit;
}

void TestDocReferences::everyInstalledDocumentTheyNameIsInstalled()
{
    // O3: /usr/share/doc/baton holds what app/CMakeLists.txt installs there
    // (tests/package checks the package), and the Debian files of every package.
    QFETCH(QString, file);
    QSet<QString> installed {QStringLiteral("copyright"), QStringLiteral("changelog.gz")};
    static const QRegularExpression list(QStringLiteral("set\\(baton_installed_docs([^)]*)\\)"));
    const QRegularExpressionMatch rule = list.match(readSource(QStringLiteral("app/CMakeLists.txt")));
    QVERIFY2(rule.hasMatch(), "no list baton_installed_docs in app/CMakeLists.txt");
    for (const QString &doc : rule.captured(1).split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
        QVERIFY2(existsInTree(QStringLiteral("docs/") + doc), qPrintable(QStringLiteral("installs a missing docs/") + doc));
        installed.insert(doc);
    }
    static const QRegularExpression named(QStringLiteral("/usr/share/doc/baton/([\\w./-]*[\\w])"));
    QStringList missing;
    for (const QRegularExpressionMatch &m : named.globalMatch(readSource(file)))
        if (!installed.contains(m.captured(1)))
            missing << m.captured(1);
    // The manual page is read where baton is installed: every page it names is there.
    static const QRegularExpression page(QStringLiteral("(?<![\\w/.-])((?:[\\w-]+/)*[\\w-]+\\.md)\\b"));
    if (file.endsWith(QLatin1String("BatonManual.cmake")))
        // roff writes a hyphen in a name as \\- (doubled in the CMake string).
        for (const QRegularExpressionMatch &m : page.globalMatch(readSource(file).remove(QLatin1Char('\\'))))
            if (!installed.contains(m.captured(1)))
                missing << m.captured(1);
    QVERIFY2(missing.isEmpty(), qPrintable(file + QLatin1String(" names what is not installed: ") + missing.join(QLatin1String(", "))));
}

static QStringList installedDocs(const QString &cmakeList)
{
    static const QRegularExpression list(QStringLiteral("set\\(baton_installed_docs([^)]*)\\)"));
    return list.match(cmakeList).captured(1).split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
}

void TestDocReferences::everyLinkOfAnInstalledPageLeadsToAnInstalledPage_data()
{
    QTest::addColumn<QString>("doc");
    // Pages only: the bytes of a screenshot can spell a link by chance.
    for (const QString &doc : installedDocs(readSource(QStringLiteral("app/CMakeLists.txt"))))
        if (doc.endsWith(QLatin1String(".md")))
            QTest::newRow(qPrintable(doc)) << doc;
}

void TestDocReferences::everyLinkOfAnInstalledPageLeadsToAnInstalledPage()
{
    // O3: under /usr/share/doc/baton a link to a page the package leaves out leads nowhere.
    QFETCH(QString, doc);
    const QStringList installed = installedDocs(readSource(QStringLiteral("app/CMakeLists.txt")));
    static const QRegularExpression link(QStringLiteral("\\]\\(([^)\\s#]+)(?:#[^)]*)?\\)"));
    const QString folder = QFileInfo(doc).path();
    QStringList outside;
    for (const QRegularExpressionMatch &m : link.globalMatch(readSource(QStringLiteral("docs/") + doc))) {
        const QString target = m.captured(1);
        if (target.contains(QLatin1String("://")) || target.startsWith(QLatin1String("mailto:")))
            continue;
        const QString page = QDir::cleanPath(folder + QLatin1Char('/') + target);
        if (!installed.contains(page))
            outside << target;
    }
    QVERIFY2(outside.isEmpty(), qPrintable(doc + QLatin1String(" links to pages that are not installed: ") + outside.join(QLatin1String(", "))));
}

void TestDocReferences::everyBatonCommandAndOptionTheDocsShowExists_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &doc : userDocs())
        QTest::newRow(qPrintable(doc)) << doc;
}

void TestDocReferences::everyBatonCommandAndOptionTheDocsShowExists()
{
    // O3: what a page shows as a baton command line, baton takes.
    QFETCH(QString, file);
    // `baton` as a command word, then its arguments up to the end of the
    // command (a pipe, a list, a redirection, a comment).
    static const QRegularExpression mention(QStringLiteral("(?:^|[\\s/$(=\"'])baton[ \\t]+([^|;&<>#`\\n]*)"));
    static const QRegularExpression quoted(QStringLiteral("\"[^\"]*\"|'[^']*'"));
    static const QRegularExpression word(QStringLiteral("\\S+"));
    QStringList unknown;
    for (const QString &line : codeLines(readSource(file))) {
        for (const QRegularExpressionMatch &m : mention.globalMatch(line)) {
            QStringList words;
            for (const QRegularExpressionMatch &w : word.globalMatch(m.captured(1).replace(quoted, QStringLiteral("ARG"))))
                words << w.captured(0);
            if (words.isEmpty())
                continue;
            const QString command = words.takeFirst();
            // A message baton prints ("baton status: ..."), a placeholder
            // (COMMAND) or an ellipsis: not a command line.
            if (command.endsWith(QLatin1Char(':')) || command == command.toUpper())
                continue;
            // Before a command: the version, the usage, or the dashboard in
            // a language (app/main.cpp, gui/dashboard.h).
            if (command.startsWith(QLatin1Char('-'))) {
                if (!QStringList {QStringLiteral("--version"), QStringLiteral("--help"), QStringLiteral("-h"),
                                  QStringLiteral("--lang")}
                             .contains(command))
                    unknown << QStringLiteral("baton ") + command;
                continue;
            }
            if (command == QLatin1String("version"))
                continue;
            if (!m_options.contains(command)) {
                unknown << QStringLiteral("baton ") + command;
                continue;
            }
            for (const QString &argument : std::as_const(words)) {
                const QString name = argument.section(QLatin1Char('='), 0, 0);
                if (!name.startsWith(QLatin1Char('-')) || name == QLatin1String("-") || name == QLatin1String("--"))
                    continue;
                if (!m_options[command].contains(name))
                    unknown << QStringLiteral("baton %1 %2").arg(command, name);
            }
        }
    }
    unknown.removeDuplicates();
    QVERIFY2(unknown.isEmpty(), qPrintable(file + QLatin1String(" shows what baton does not take: ") + unknown.join(QLatin1String(", "))));
}

void TestDocReferences::theImageTheManifestsRunIsTheOneTheDocsBuild()
{
    // O3: the Deployment's image is the one docs/howto/kubernetes.md builds from the Containerfile.
    static const QRegularExpression image(QStringLiteral("\\bimage:\\s*(\\S+)"));
    const QRegularExpressionMatch m = image.match(readSource(QStringLiteral("resources/kubernetes/participant/deployment.yaml")));
    QVERIFY2(m.hasMatch(), "the Deployment names no image");
    QVERIFY(existsInTree(QStringLiteral("Containerfile")));
    const QString build = QStringLiteral("build -t %1 -f Containerfile .").arg(m.captured(1));
    QVERIFY2(readSource(QStringLiteral("docs/howto/kubernetes.md")).contains(build), qPrintable(build));
}

QTEST_GUILESS_MAIN(TestDocReferences)
#include "tst_docreferences.moc"

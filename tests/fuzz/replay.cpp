// Without libFuzzer (GCC, or clang without BATON_FUZZ) each target is linked
// with this driver instead: it runs the target once on every file named or
// found in the folders named, so the seed corpora and any crash reproducer
// saved there are replayed by ctest in the ordinary build.

#include "fuzzsupport.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <cstdio>

int main(int argc, char **argv)
{
    int runs = 0;
    for (int i = 1; i < argc; ++i) {
        QStringList files;
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (QFileInfo(arg).isDir()) {
            QDirIterator it(arg, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext())
                files << it.next();
            files.sort(); // the same order on every machine
        } else {
            files << arg;
        }
        for (const QString &path : files) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly)) {
                std::fprintf(stderr, "replay: cannot read %s\n", qPrintable(path));
                return 2;
            }
            const QByteArray content = file.readAll();
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t *>(content.constData()),
                                   std::size_t(content.size()));
            ++runs;
        }
    }
    std::printf("replay: %d inputs, no property violated\n", runs);
    // A folder with no input would make a green test that proved nothing.
    return runs > 0 ? 0 : 1;
}

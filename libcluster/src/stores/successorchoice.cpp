#include <batoninternal/successorchoice.h>

#include <QStringList>

#include <algorithm>

namespace baton {

SuccessorChoice chooseSuccessor(const QList<CandidateRecord> &records, const LabelSelector &selector,
                                const QString &holder, const QDateTime &nowWall)
{
    SuccessorChoice choice;
    QList<const CandidateRecord *> eligible;
    QStringList passedOver;
    for (const CandidateRecord &record : records) {
        const bool matches = selector.matches(record.labels);
        if (record.instance == holder) {
            choice.holderMatches = matches;
            continue;
        }
        if (!matches)
            passedOver << QStringLiteral("%1 (labels: %2)")
                                  .arg(record.instance, record.labels.isEmpty()
                                                                ? QStringLiteral("none")
                                                                : candidatelabels::format(record.labels));
        else if (!record.seemsLiveAt(nowWall))
            passedOver << QStringLiteral("%1 (not running)").arg(record.instance);
        else if (record.drained)
            passedOver << QStringLiteral("%1 (drained)").arg(record.instance);
        else
            eligible << &record;
    }
    if (choice.holderMatches) {
        choice.explanation = QStringLiteral("%1 holds the lease and matches \"%2\" already")
                                     .arg(holder, selector.text());
        return choice;
    }
    if (eligible.isEmpty()) {
        choice.explanation = passedOver.isEmpty()
                ? QStringLiteral("no candidate of the lease has announced itself besides its holder")
                : QStringLiteral("no running, undrained candidate matches \"%1\"; the candidates: %2")
                          .arg(selector.text(), passedOver.join(QStringLiteral(", ")));
        return choice;
    }
    const CandidateRecord *best = *std::min_element(eligible.cbegin(), eligible.cend(),
                                                    [](const CandidateRecord *a, const CandidateRecord *b) {
        if (a->priority != b->priority)
            return a->priority > b->priority;
        return a->instance < b->instance;
    });
    choice.instance = best->instance;
    choice.explanation = eligible.size() == 1
            ? QStringLiteral("the one running, undrained candidate that matches \"%1\"").arg(selector.text())
            : QStringLiteral("of %1 running, undrained candidates that match \"%2\", the one of the highest "
                             "priority (%3), then of the first id")
                      .arg(eligible.size())
                      .arg(selector.text())
                      .arg(best->priority);
    return choice;
}

} // namespace baton

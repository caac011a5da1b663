#include <batoninternal/labelselector.h>

#include <QRegularExpression>

namespace baton {

namespace {

constexpr qsizetype maxNameLength = 63;
constexpr qsizetype maxPrefixLength = 253;

bool isAsciiAlphanumeric(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}

/*! Why \a name is not a label name (or value, \a what says which); empty when it is one. */
QString checkName(const QString &name, const QString &what)
{
    if (name.isEmpty())
        return QStringLiteral("%1 is empty").arg(what);
    if (name.size() > maxNameLength)
        return QStringLiteral("%1 \"%2\" is longer than %3 characters").arg(what, name).arg(maxNameLength);
    for (QChar c : name)
        if (!isAsciiAlphanumeric(c) && c != u'-' && c != u'_' && c != u'.')
            return QStringLiteral("%1 \"%2\" holds \"%3\": only letters, digits, '-', '_' and '.' are allowed")
                    .arg(what, name, QString(c));
    if (!isAsciiAlphanumeric(name.front()) || !isAsciiAlphanumeric(name.back()))
        return QStringLiteral("%1 \"%2\" must begin and end with a letter or a digit").arg(what, name);
    return {};
}

QString checkPrefix(const QString &prefix)
{
    static const QRegularExpression subdomain(
            QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    if (prefix.isEmpty() || prefix.size() > maxPrefixLength || !subdomain.match(prefix).hasMatch())
        return QStringLiteral("the key's prefix \"%1\" is not a DNS subdomain (lower-case letters, digits, '-' "
                              "and '.', such as example.com)")
                .arg(prefix);
    return {};
}

/*! \a text split at the commas that are not between parentheses. */
QStringList splitRequirements(const QString &text)
{
    QStringList parts;
    QString current;
    int depth = 0;
    for (QChar c : text) {
        if (c == u'(')
            ++depth;
        else if (c == u')')
            --depth;
        if (c == u',' && depth == 0) {
            parts << current;
            current.clear();
        } else {
            current += c;
        }
    }
    parts << current;
    return parts;
}

} // namespace

namespace candidatelabels {

QString checkKey(const QString &key)
{
    const qsizetype slash = key.indexOf(QLatin1Char('/'));
    if (slash < 0)
        return checkName(key, QStringLiteral("the label key"));
    if (const QString why = checkPrefix(key.left(slash)); !why.isEmpty())
        return why;
    return checkName(key.mid(slash + 1), QStringLiteral("the label key's name"));
}

QString checkValue(const QString &value)
{
    return value.isEmpty() ? QString() : checkName(value, QStringLiteral("the label value"));
}

bool parseAssignment(const QString &text, CandidateLabels *labels, QString *errorString)
{
    const qsizetype equals = text.indexOf(QLatin1Char('='));
    if (equals < 0) {
        *errorString = QStringLiteral("\"%1\" is not KEY=VALUE").arg(text);
        return false;
    }
    const QString key = text.left(equals);
    const QString value = text.mid(equals + 1);
    QString why = checkKey(key);
    if (why.isEmpty())
        why = checkValue(value);
    if (!why.isEmpty()) {
        *errorString = QStringLiteral("\"%1\": %2").arg(text, why);
        return false;
    }
    labels->insert(key, value);
    return true;
}

QJsonObject toJson(const CandidateLabels &labels)
{
    QJsonObject object;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

QString format(const CandidateLabels &labels)
{
    QStringList pairs;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        pairs << it.key() + QLatin1Char('=') + it.value();
    return pairs.join(QLatin1Char(','));
}

} // namespace candidatelabels

bool LabelSelector::looksLikeSelector(const QString &text)
{
    static const QRegularExpression marks(QStringLiteral("[=!(),\\s]"));
    return text.contains(marks);
}

std::optional<LabelSelector::Requirement> LabelSelector::parseRequirement(const QString &text,
                                                                          QString *errorString)
{
    using Operator = Requirement::Operator;
    static const QRegularExpression set(QStringLiteral("^(\\S+)\\s+(in|notin)\\s*\\(([^()]*)\\)$"));
    Requirement requirement;
    const QString term = text.trimmed();
    if (term.isEmpty()) {
        *errorString = QStringLiteral("a requirement is empty (two commas in a row, or one at an end)");
        return std::nullopt;
    }
    if (const QRegularExpressionMatch match = set.match(term); match.hasMatch()) {
        requirement.op = match.captured(2) == QLatin1String("in") ? Operator::In : Operator::NotIn;
        requirement.key = match.captured(1);
        for (const QString &value : match.captured(3).split(QLatin1Char(',')))
            requirement.values << value.trimmed();
    } else if (term.startsWith(QLatin1Char('!')) && !term.contains(QLatin1Char('='))) {
        requirement.op = Operator::DoesNotExist;
        requirement.key = term.mid(1).trimmed();
    } else if (const qsizetype notEquals = term.indexOf(QStringLiteral("!=")); notEquals >= 0) {
        requirement.op = Operator::NotEquals;
        requirement.key = term.left(notEquals).trimmed();
        requirement.values << term.mid(notEquals + 2).trimmed();
    } else if (const qsizetype equals = term.indexOf(QLatin1Char('=')); equals >= 0) {
        requirement.op = Operator::Equals;
        requirement.key = term.left(equals).trimmed();
        const bool doubled = term.mid(equals + 1).startsWith(QLatin1Char('='));
        requirement.values << term.mid(equals + (doubled ? 2 : 1)).trimmed();
    } else if (term.contains(QLatin1Char('(')) || term.contains(QLatin1Char(')'))) {
        *errorString = QStringLiteral("\"%1\" is not \"KEY in (A,B)\" or \"KEY notin (A,B)\"").arg(term);
        return std::nullopt;
    } else {
        requirement.op = Operator::Exists;
        requirement.key = term;
    }
    QString why = candidatelabels::checkKey(requirement.key);
    for (const QString &value : std::as_const(requirement.values))
        if (why.isEmpty())
            why = candidatelabels::checkValue(value);
    if (why.isEmpty() && (requirement.op == Operator::In || requirement.op == Operator::NotIn)
        && requirement.values.contains(QString()))
        why = QStringLiteral("a value in the parentheses is empty");
    if (!why.isEmpty()) {
        *errorString = QStringLiteral("in \"%1\": %2").arg(term, why);
        return std::nullopt;
    }
    return requirement;
}

std::optional<LabelSelector> LabelSelector::parse(const QString &text, QString *errorString)
{
    LabelSelector selector;
    selector.m_text = text.trimmed();
    if (selector.m_text.isEmpty()) {
        *errorString = QStringLiteral("the label selector is empty");
        return std::nullopt;
    }
    for (const QString &part : splitRequirements(selector.m_text)) {
        QString why;
        std::optional<Requirement> requirement = parseRequirement(part, &why);
        if (!requirement) {
            *errorString = QStringLiteral("label selector \"%1\": %2").arg(selector.m_text, why);
            return std::nullopt;
        }
        selector.m_requirements << *requirement;
    }
    return selector;
}

bool LabelSelector::matches(const CandidateLabels &labels) const
{
    using Operator = Requirement::Operator;
    for (const Requirement &requirement : m_requirements) {
        const auto found = labels.constFind(requirement.key);
        const bool has = found != labels.cend();
        bool holds = false;
        switch (requirement.op) {
        case Operator::Equals:
            holds = has && *found == requirement.values.first();
            break;
        case Operator::NotEquals: // as in Kubernetes: a candidate without the label matches
            holds = !has || *found != requirement.values.first();
            break;
        case Operator::In:
            holds = has && requirement.values.contains(*found);
            break;
        case Operator::NotIn:
            holds = !has || !requirement.values.contains(*found);
            break;
        case Operator::Exists:
            holds = has;
            break;
        case Operator::DoesNotExist:
            holds = !has;
            break;
        }
        if (!holds)
            return false;
    }
    return true;
}

} // namespace baton

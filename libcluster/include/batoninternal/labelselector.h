#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace baton {

/*! A candidate's labels (`baton join --label zone=a`), by key. */
using CandidateLabels = QMap<QString, QString>;

/*!
 * Labels in Kubernetes' syntax, so that one vocabulary serves `kubectl`
 * and `baton`: a key is `[prefix/]name`, the name 1 to 63 of
 * `[A-Za-z0-9._-]` beginning and ending with a letter or digit, the prefix
 * a DNS subdomain; a value is empty or like a name.
 */
namespace candidatelabels {

/*! Why \a key is not a label key; empty when it is one. */
BATON_INTERNAL_EXPORT QString checkKey(const QString &key);
/*! Why \a value is not a label value; empty when it is one. */
BATON_INTERNAL_EXPORT QString checkValue(const QString &value);
/*! `KEY=VALUE` into \a labels; false with \a errorString naming what is wrong. */
BATON_INTERNAL_EXPORT bool parseAssignment(const QString &text, CandidateLabels *labels, QString *errorString);
/*! As a JSON object of strings, as records and configuration files hold them. */
BATON_INTERNAL_EXPORT QJsonObject toJson(const CandidateLabels &labels);
/*! `a=1,b=2`, keys in order: for tables and logs. */
BATON_INTERNAL_EXPORT QString format(const CandidateLabels &labels);

} // namespace candidatelabels

/*!
 * A label selector as Kubernetes writes one: requirements joined by
 * commas, all of which must hold: `key=value` (or `==`), `key!=value`,
 * `key in (a,b)`, `key notin (a,b)`, `key` (has the label), `!key`.
 */
class BATON_INTERNAL_EXPORT LabelSelector
{
public:
    /*! The selector \a text spells, or nothing with \a errorString saying which part is wrong. */
    static std::optional<LabelSelector> parse(const QString &text, QString *errorString);
    /*!
     * Whether \a text is meant as a selector rather than an instance id:
     * it holds one of `= ! ( ,` or a space, which instance ids never do.
     */
    static bool looksLikeSelector(const QString &text);

    bool matches(const CandidateLabels &labels) const;
    /*! As parsed, for messages. */
    QString text() const { return m_text; }

private:
    struct Requirement
    {
        enum class Operator { Equals, NotEquals, In, NotIn, Exists, DoesNotExist };
        Operator op = Operator::Exists;
        QString key;
        QStringList values;
    };
    static std::optional<Requirement> parseRequirement(const QString &text, QString *errorString);

    QList<Requirement> m_requirements;
    QString m_text;
};

} // namespace baton

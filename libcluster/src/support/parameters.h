#pragma once

#include <batoninternal/didyoumean.h> // closest()

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace baton {

/*!
 * Reads the parameters of one service with one refusal format for the whole
 * library (P1):
 *
 *     service "NAME" (TYPE): parameter "P" = VALUE: RULE
 *
 * Every refusal is kept, one line each in file order of the reads, and a
 * refused read returns its fallback, so that an init() reads everything in
 * a row, checks ok() once at the end and reports all its mistakes at once.
 * The application puts the file, line and column of each parameter in front.
 */
class ParameterReader
{
public:
    /*! \a service is how messages name it: `service "cluster" (Webda/StoreClusterService)`. */
    ParameterReader(const QString &service, const QJsonObject &parameters);

    /*! `service "NAME" (TYPE)`, or `service "NAME"` without a type. */
    static QString describeService(const QString &name, const QString &type);

    bool ok() const { return m_errors.isEmpty(); }
    /*! The refusals, one a line (joined by newlines). */
    QString errorString() const { return m_errors.join(QLatin1Char('\n')); }

    /*! Whether \a name (a dotted path such as `tls.ca`) is set to something other than null. */
    bool has(const QString &name) const;
    /*! The value at \a name, a dotted path; undefined when absent. */
    QJsonValue value(const QString &name) const;

    /*!
     * A duration in milliseconds: a whole number (`5000`) or a string with a
     * unit (`"500ms"`, `"15s"`, `"1m"`, `"1h"`), from \a minimum to \a maximum.
     */
    qint64 duration(const QString &name, qint64 fallback, qint64 minimum = 1,
                    qint64 maximum = kMaxDurationMs);
    /*! A string; refused when empty unless \a mayBeEmpty. */
    QString string(const QString &name, const QString &fallback = {}, bool mayBeEmpty = false);
    /*! A secret string: refused like string() but never shown. */
    QString secret(const QString &name);
    bool boolean(const QString &name, bool fallback);
    /*! A whole number from \a minimum to \a maximum. */
    qint64 integer(const QString &name, qint64 fallback, qint64 minimum, qint64 maximum);
    /*! An object, for blocks such as `tls`; \a example shows the expected shape. */
    QJsonObject block(const QString &name, const QString &example);

    /*! Records a refusal of \a name; \a value is shown as the file spells it. */
    void refuse(const QString &name, const QJsonValue &value, const QString &rule);
    /*! Records a refusal without showing the value (secrets). */
    void refuseHidden(const QString &name, const QString &rule);

    static constexpr qint64 kMaxDurationMs = qint64(24) * 3600 * 1000;
    /*!
     * The least `timeout` of a store's request: one round trip to etcd or
     * the Kubernetes API, TLS included, on a loaded host. Below it every
     * request would fail "no answer within", however healthy the store.
     */
    static constexpr qint64 kMinStoreTimeoutMs = 100;

private:
    QString m_service;
    QJsonObject m_parameters;
    QStringList m_errors;
    QStringList m_refused; // one refusal a parameter: the first reason is the one to fix
};

namespace parameters {

/*!
 * Milliseconds of a duration as a configuration writes it: a whole number
 * of milliseconds, or a string in the one duration syntax ("1.5s", "500ms",
 * see durationtext). Returns nothing, with \a problem saying why, when
 * \a value is neither; the range is the caller's.
 */
std::optional<qint64> parseDuration(const QJsonValue &value, QString *problem);

/*! The rule a duration breaks, for messages. */
QString durationRule(qint64 minimum, qint64 maximum);

/*! \a value as the file spells it, or `(hidden)` when \a key looks like the name of a secret. */
QString shownValue(const QString &key, const QJsonValue &value);

/*!
 * The name of the parameter a refusal line is about (`tls.ca` in `service
 * "Registry" (Webda/EtcdStore): parameter "tls.ca" = ...`), or an empty
 * string when the line is about no parameter.
 */
QString refusedParameter(const QString &line);

/*!
 * The refusal of every key of \a parameters that \a declared does not name,
 * one a line, or an empty string when there is none. \a declared lists
 * names and dotted names of blocks (`tls.ca` declares the block `tls` and
 * its key `ca`); `type` is always allowed at the top.
 */
QString refuseUnknown(const QString &service, const QJsonObject &parameters,
                      const QStringList &declared);

} // namespace parameters

} // namespace baton

#pragma once

#include <QByteArray>
#include <QList>

namespace baton {

/*!
 * Cuts a byte stream of concatenated JSON objects into one buffer per
 * object, whatever the reads look like: an object split over several reads,
 * several objects in one read, with or without newlines between them (etcd
 * 3.4's gateway separates them with a newline; a proxy may re-chunk).
 *
 * It only tracks braces outside strings; parsing is the caller's job, so a
 * malformed object comes out as one buffer and fails to parse there.
 */
class JsonStreamSplitter
{
public:
    explicit JsonStreamSplitter(qsizetype maxObjectBytes = 4 * 1024 * 1024);

    /*!
     * Appends \a data and returns the objects it completed. Returns false
     * (and stops) when one object grows past the limit, or when something
     * other than whitespace stands between objects.
     */
    bool feed(const QByteArray &data, QList<QByteArray> *objects);
    QString errorString() const { return m_error; }
    /*! Bytes of an object begun but not finished. */
    qsizetype pendingBytes() const { return m_current.size(); }

private:
    qsizetype m_maxObjectBytes;
    QByteArray m_current;
    int m_depth = 0;
    bool m_inString = false;
    bool m_escaped = false;
    bool m_failed = false;
    QString m_error;
};

} // namespace baton

#pragma once

// Between `baton` and its status module (baton-status.so, statusmodule.cpp):
// both are built together, so the entry point may take C++ types.

#include <QByteArray>
#include <QHash>
#include <QString>

#include <functional>

class QHostAddress;
class QObject;
class QUrlQuery;

namespace baton::statusmodule {

/*! One answer: a line of text, or of JSON. */
struct Page
{
    QByteArray contentType;
    QByteArray body;
    int status = 200;
};

/*! Path to the function that makes its page from the request's query, called on each request. */
using Pages = QHash<QString, std::function<Page(const QUrlQuery &query)>>;

/*!
 * The module's entry point (symbol listenSymbol): serves \a pages on
 * \a address, \a port; returns the server, a child of \a parent, and sets
 * \a bound to its port; nullptr when it cannot listen.
 */
using Listen = QObject *(*)(const Pages &pages, const QHostAddress &address, quint16 port,
                            quint16 *bound, QObject *parent);
inline constexpr char listenSymbol[] = "baton_status_listen";

} // namespace baton::statusmodule

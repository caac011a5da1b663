#pragma once

#include <QString>

namespace baton {

/*!
 * What went wrong with one HTTP request, mapped once at the edge (the HTTP
 * helper) so that etcd and Kubernetes code only decide what a kind means to
 * them. The message names the method and URL (user info and query removed)
 * and never holds a header value: tokens travel in headers only.
 */
struct HttpError
{
    enum class Kind {
        None,
        /*! Connection refused, reset or closed, host not found. */
        Connection,
        /*! No complete answer within the request's timeout. */
        Timeout,
        /*! TLS handshake or certificate verification failed. */
        Tls,
        /*! The server answered with an HTTP status outside 2xx. */
        HttpStatus,
        /*! A 2xx answer whose body is not a JSON object. */
        NotJson,
        /*! The answer was larger than the reply size limit. */
        TooLarge,
        /*! A redirect to another host, or from https to http. */
        Redirect,
        /*! Aborted by its owner (a watch closed): not reported as a failure. */
        Aborted,
        /*! Any other network failure. */
        Network,
    };
    Kind kind = Kind::None;
    /*! The HTTP status when the server answered, else 0. */
    int httpStatus = 0;
    /*! For HttpStatus: the body's own message (etcd `message`, Kubernetes Status `message`). */
    QString serverMessage;
    /*!
     * For HttpStatus: the body's own numeric `code` (etcd: the gRPC status
     * code; a Kubernetes Status: the HTTP status again), else 0.
     */
    int serverCode = 0;
    QString message;
    /*!
     * For Tls: the server's certificate was refused (no trusted CA signed
     * it, another name, expired), rather than the handshake failing.
     */
    bool certificateRejected = false;
    /*! For Connection: refused, so nothing of TLS was reached. */
    bool connectionRefused = false;

    bool ok() const { return kind == Kind::None; }
    /*! Whether another endpoint might do better: the server was not reached or is failing. */
    bool isTransient() const
    {
        return kind == Kind::Connection || kind == Kind::Timeout || kind == Kind::Tls
            || kind == Kind::Network || (kind == Kind::HttpStatus && httpStatus >= 500);
    }
};

} // namespace baton

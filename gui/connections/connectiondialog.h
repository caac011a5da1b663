#pragma once

#include "connection.h"

#include <QDialog>
#include <QHash>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStackedWidget;

namespace baton {

class ConnectionProbe;
class ConnectionRepository;

/*!
 * Add, edit and remove connections (O4). Every kind shows its fields;
 * a kind this build cannot open (a Registry store type the ServiceFactory
 * lacks) is marked "coming" and can be saved but not opened. Secret fields are password fields whose value goes
 * to the keychain only; left empty, the stored secret is kept. Test
 * connection reads what the form says once, without saving it.
 */
class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionDialog(ConnectionRepository *repository, QWidget *parent = nullptr);

    void selectConnection(const QString &id);
    /*! The connection the operator chose to open (Open), or empty. */
    QString connectionToOpen() const { return m_toOpen; }
    /*! Fills the form with \a connection's parameters (secrets shown as stored). */
    void showConnection(const Connection &connection);

private:
    void reload(const QString &selectId);
    void onSelectionChanged();
    void onKindChanged();
    Connection formConnection() const;
    void save(bool thenOpen);
    void removeSelected();
    void newConnection();
    void testConnection();

    ConnectionRepository *m_repository;
    QListWidget *m_list;
    QLineEdit *m_name;
    QComboBox *m_kind;
    QStackedWidget *m_pages;
    QLabel *m_kindNote;
    QLabel *m_status;
    QPushButton *m_save;
    QPushButton *m_open;
    QPushButton *m_remove;
    QPushButton *m_test;
    ConnectionProbe *m_probe;
    /*! kind -> field key -> editor. */
    QHash<int, QHash<QString, QLineEdit *>> m_editors;
    QString m_editingId;
    QString m_toOpen;
};

} // namespace baton

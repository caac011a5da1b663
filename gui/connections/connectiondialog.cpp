#include "connectiondialog.h"

#include "connectionprobe.h"
#include "connectionrepository.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace baton {

ConnectionDialog::ConnectionDialog(ConnectionRepository *repository, QWidget *parent)
    : QDialog(parent)
    , m_repository(repository)
    , m_list(new QListWidget(this))
    , m_name(new QLineEdit(this))
    , m_kind(new QComboBox(this))
    , m_pages(new QStackedWidget(this))
    , m_kindNote(new QLabel(this))
    , m_status(new QLabel(this))
    , m_save(new QPushButton(tr("&Save"), this))
    , m_open(new QPushButton(tr("Save and &open"), this))
    , m_remove(new QPushButton(tr("&Remove"), this))
    , m_test(new QPushButton(tr("&Test connection"), this))
    , m_probe(new ConnectionProbe(this))
{
    setWindowTitle(tr("Connections"));
    setObjectName(QStringLiteral("connectionDialog"));
    m_list->setObjectName(QStringLiteral("connectionList"));
    m_name->setObjectName(QStringLiteral("connectionName"));
    m_kind->setObjectName(QStringLiteral("connectionKind"));
    m_save->setObjectName(QStringLiteral("saveConnection"));
    m_open->setObjectName(QStringLiteral("openConnection"));
    m_remove->setObjectName(QStringLiteral("removeConnection"));
    m_test->setObjectName(QStringLiteral("testConnection"));
    m_test->setToolTip(tr("Read the leases once with these settings, without saving them"));
    m_status->setObjectName(QStringLiteral("connectionStatus"));
    m_kindNote->setWordWrap(true);
    m_status->setWordWrap(true);

    for (ConnectionKind kind : Connection::kinds()) {
        const QString label = Connection::isAvailable(kind)
                ? Connection::kindName(kind)
                : tr("%1 (coming)").arg(Connection::kindName(kind));
        m_kind->addItem(label, int(kind));
        auto *page = new QWidget(this);
        auto *form = new QFormLayout(page);
        form->setContentsMargins(0, 0, 0, 0);
        const QList<ConnectionField> fields = Connection::fields(kind);
        for (const ConnectionField &field : fields) {
            auto *edit = new QLineEdit(page);
            edit->setObjectName(QStringLiteral("field_%1_%2").arg(Connection::kindKey(kind), field.key));
            edit->setPlaceholderText(field.placeholder);
            if (field.type == ConnectionField::Type::Secret)
                edit->setEchoMode(QLineEdit::Password);
            m_editors[int(kind)].insert(field.key, edit);
            if (field.type == ConnectionField::Type::Folder || field.type == ConnectionField::Type::File) {
                auto *row = new QHBoxLayout;
                row->addWidget(edit, 1);
                auto *browse = new QToolButton(page);
                browse->setText(tr("…"));
                browse->setToolTip(tr("Browse"));
                const bool folder = field.type == ConnectionField::Type::Folder;
                connect(browse, &QToolButton::clicked, this, [this, edit, folder] {
                    const QString path = folder
                            ? QFileDialog::getExistingDirectory(this, tr("Choose a folder"), edit->text())
                            : QFileDialog::getOpenFileName(this, tr("Choose a file"), edit->text());
                    if (!path.isEmpty())
                        edit->setText(path);
                });
                row->addWidget(browse);
                form->addRow(field.label + (field.required ? QStringLiteral(" *") : QString()), row);
            } else {
                form->addRow(field.label + (field.required ? QStringLiteral(" *") : QString()), edit);
            }
        }
        m_pages->addWidget(page);
    }

    auto *left = new QVBoxLayout;
    left->addWidget(m_list, 1);
    auto *listButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("&New"), this);
    add->setObjectName(QStringLiteral("newConnection"));
    listButtons->addWidget(add);
    listButtons->addWidget(m_remove);
    left->addLayout(listButtons);

    auto *right = new QVBoxLayout;
    auto *common = new QFormLayout;
    common->addRow(tr("Name"), m_name);
    common->addRow(tr("Kind"), m_kind);
    right->addLayout(common);
    right->addWidget(m_kindNote);
    right->addWidget(m_pages);
    auto *secretNote = new QLabel(tr("Passwords and tokens are kept in the system keychain, never in the "
                                     "settings file. Leave a secret field empty to keep the stored one."),
                                  this);
    secretNote->setWordWrap(true);
    QPalette quiet = secretNote->palette();
    quiet.setColor(QPalette::WindowText, quiet.color(QPalette::PlaceholderText));
    secretNote->setPalette(quiet);
    right->addWidget(secretNote);
    right->addStretch();
    auto *testRow = new QHBoxLayout;
    testRow->addWidget(m_test);
    testRow->addWidget(m_status, 1);
    right->addLayout(testRow);

    auto *columns = new QHBoxLayout;
    columns->addLayout(left, 2);
    columns->addLayout(right, 5);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_save, QDialogButtonBox::ApplyRole);
    buttons->addButton(m_open, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(columns, 1);
    layout->addWidget(buttons);

    connect(m_list, &QListWidget::currentRowChanged, this, &ConnectionDialog::onSelectionChanged);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ConnectionDialog::onKindChanged);
    connect(add, &QPushButton::clicked, this, &ConnectionDialog::newConnection);
    connect(m_remove, &QPushButton::clicked, this, &ConnectionDialog::removeSelected);
    connect(m_save, &QPushButton::clicked, this, [this] { save(false); });
    connect(m_open, &QPushButton::clicked, this, [this] { save(true); });
    connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::testConnection);
    connect(m_probe, &ConnectionProbe::finished, this, [this](bool, const QString &summary) {
        m_status->setText(summary);
        onKindChanged();
    });

    resize(760, 440);
    reload({});
    if (m_list->count() == 0)
        newConnection();
}

void ConnectionDialog::reload(const QString &selectId)
{
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    const QList<Connection> all = m_repository->connections();
    int selectRow = -1;
    for (const Connection &c : all) {
        auto *item = new QListWidgetItem(c.displayName(), m_list);
        item->setData(Qt::UserRole, c.id);
        item->setToolTip(Connection::kindName(c.kind));
        if (c.id == selectId)
            selectRow = m_list->count() - 1;
    }
    if (selectRow >= 0) {
        m_list->setCurrentRow(selectRow);
        onSelectionChanged();
    }
}

void ConnectionDialog::selectConnection(const QString &id)
{
    for (int row = 0; row < m_list->count(); ++row)
        if (m_list->item(row)->data(Qt::UserRole).toString() == id)
            m_list->setCurrentRow(row);
}

void ConnectionDialog::onSelectionChanged()
{
    QListWidgetItem *item = m_list->currentItem();
    if (!item)
        return;
    if (const auto c = m_repository->connection(item->data(Qt::UserRole).toString()))
        showConnection(*c);
}

void ConnectionDialog::showConnection(const Connection &connection)
{
    m_editingId = connection.id;
    m_name->setText(connection.name);
    m_kind->setCurrentIndex(m_kind->findData(int(connection.kind)));
    const QList<ConnectionField> fields = Connection::fields(connection.kind);
    for (const ConnectionField &field : fields) {
        QLineEdit *edit = m_editors[int(connection.kind)].value(field.key);
        if (field.type == ConnectionField::Type::Secret) {
            edit->clear();
            edit->setPlaceholderText(connection.id.isEmpty() ? field.placeholder
                                                              : tr("unchanged (kept in the system keychain)"));
        } else {
            edit->setText(connection.parameters.value(field.key).toString());
        }
    }
    m_remove->setEnabled(!connection.id.isEmpty());
    m_status->clear();
    onKindChanged();
}

void ConnectionDialog::newConnection()
{
    m_list->clearSelection();
    m_list->setCurrentRow(-1);
    Connection fresh;
    fresh.name = tr("New connection");
    showConnection(fresh);
    m_name->setFocus();
    m_name->selectAll();
}

void ConnectionDialog::onKindChanged()
{
    const auto kind = ConnectionKind(m_kind->currentData().toInt());
    m_pages->setCurrentIndex(m_kind->currentIndex());
    if (Connection::isAvailable(kind) && !Connection::canJoin(kind)) {
        m_kindNote->setText(tr("The dashboard observes the Lease objects of this namespace (empty: of all "
                               "namespaces); it cannot join their elections."));
        m_kindNote->show();
    } else if (Connection::isAvailable(kind)) {
        m_kindNote->clear();
        m_kindNote->hide();
    } else {
        m_kindNote->setText(tr("Coming: %1 connections can be saved now and will open once this version "
                               "has their store.")
                                    .arg(Connection::kindName(kind)));
        m_kindNote->show();
    }
    m_open->setEnabled(Connection::isAvailable(kind));
    m_test->setEnabled(Connection::isAvailable(kind) && !m_probe->isRunning());
}

Connection ConnectionDialog::formConnection() const
{
    Connection c;
    c.id = m_editingId;
    c.name = m_name->text().trimmed();
    c.kind = ConnectionKind(m_kind->currentData().toInt());
    const QList<ConnectionField> fields = Connection::fields(c.kind);
    for (const ConnectionField &field : fields) {
        const QString value = m_editors.value(int(c.kind)).value(field.key)->text();
        if (field.type == ConnectionField::Type::Secret) {
            if (!value.isEmpty())
                c.secrets.insert(field.key, value);
        } else if (!value.trimmed().isEmpty()) {
            c.parameters.insert(field.key, value.trimmed());
        }
    }
    return c;
}

void ConnectionDialog::save(bool thenOpen)
{
    const Connection c = formConnection();
    if (c.name.isEmpty()) {
        m_status->setText(tr("Give the connection a name."));
        return;
    }
    if (const QString missing = c.missingField(); !missing.isEmpty()) {
        m_status->setText(tr("\"%1\" is required.").arg(missing));
        return;
    }
    m_status->setText(tr("Saving…"));
    m_save->setEnabled(false);
    m_open->setEnabled(false);
    QPointer<ConnectionDialog> self(this);
    const QString id = m_repository->save(c, [self, thenOpen](bool ok, const QString &error) {
        if (!self)
            return;
        self->m_save->setEnabled(true);
        self->onKindChanged();
        if (!ok) {
            self->m_status->setText(tr("Saved, but the keychain refused the secret: %1").arg(error));
            return;
        }
        self->m_status->setText(tr("Saved."));
        if (thenOpen) {
            self->m_toOpen = self->m_editingId;
            self->accept();
        }
    });
    m_editingId = id;
    reload(id);
}

void ConnectionDialog::removeSelected()
{
    if (m_editingId.isEmpty())
        return;
    m_repository->remove(m_editingId, {});
    m_editingId.clear();
    reload({});
    if (m_list->count() > 0) {
        m_list->setCurrentRow(0);
        onSelectionChanged();
    } else {
        newConnection();
    }
}

void ConnectionDialog::testConnection()
{
    const Connection typed = formConnection();
    if (const QString missing = typed.missingField(); !missing.isEmpty()) {
        m_status->setText(tr("\"%1\" is required.").arg(missing));
        return;
    }
    m_status->setText(tr("Testing…"));
    m_test->setEnabled(false);
    if (typed.id.isEmpty()) {
        m_probe->probe(typed);
        return;
    }
    // A secret field left empty means the stored one, as Save takes it.
    QPointer<ConnectionDialog> self(this);
    m_repository->loadSecrets(typed, [self, typed](const Connection &stored, const QString &) {
        if (!self)
            return;
        Connection withSecrets = typed;
        for (auto it = stored.secrets.cbegin(); it != stored.secrets.cend(); ++it)
            if (!withSecrets.secrets.contains(it.key()))
                withSecrets.secrets.insert(it.key(), it.value());
        self->m_probe->probe(withSecrets);
    });
}

} // namespace baton

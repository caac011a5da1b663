// Stand-in until the real registrations land.
#include "registrations.h"
namespace baton {
struct Registrations::Entry {};
Registrations::Registrations(QString leaseName, QObject *parent) : QObject(parent), m_leaseName(leaseName) {}
Registrations::~Registrations() = default;
void Registrations::setLeadingCheck(std::function<bool()>) {}
quint64 Registrations::add(LeaderCallback, LeaderCallback, QObject *) { return 0; }
void Registrations::remove(quint64) {}
void Registrations::setLeading(bool leading) { m_leading = leading; }
bool Registrations::isIdle() const { return true; }
int Registrations::count() const { return 0; }
}

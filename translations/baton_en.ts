<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<!-- English needs a translation for its plural forms only (tr() with %n):
     every other string is the source text itself. -->
<context>
    <name>baton::ConnectionProbe</name>
    <message numerus="yes">
        <source>Connected: %n lease(s) found.</source>
        <translation>
            <numerusform>Connected: %n lease found.</numerusform>
            <numerusform>Connected: %n leases found.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::DashboardSession</name>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… and %n more</numerusform>
            <numerusform>… and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Baton: %n lease(s) changed</source>
        <translation>
            <numerusform>Baton: %n lease changed</numerusform>
            <numerusform>Baton: %n leases changed</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::MainWindow</name>
    <message numerus="yes">
        <source>%n lease(s)</source>
        <translation>
            <numerusform>%n lease</numerusform>
            <numerusform>%n leases</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::RenewTimingWidget</name>
    <message numerus="yes">
        <source>Interval between renewals as seen: median %1, longest %2 (%n sample(s))</source>
        <translation>
            <numerusform>Interval between renewals as seen: median %1, longest %2 (%n sample)</numerusform>
            <numerusform>Interval between renewals as seen: median %1, longest %2 (%n samples)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::RunHistoryModel</name>
    <message numerus="yes">
        <source>missed: over %n tick(s), until %1</source>
        <translation>
            <numerusform>missed: over %n tick, until %1</numerusform>
            <numerusform>missed: over %n ticks, until %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>missed: %n tick(s), until %1</source>
        <translation>
            <numerusform>missed: %n tick, until %1</numerusform>
            <numerusform>missed: %n ticks, until %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No run was recorded for %n tick(s) of the schedule, from %1 to %2.</source>
        <translation>
            <numerusform>No run was recorded for %n tick of the schedule, from %1 to %2.</numerusform>
            <numerusform>No run was recorded for %n ticks of the schedule, from %1 to %2.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::TimelineWidget</name>
    <message numerus="yes">
        <source>%1 held the lease
%2
%n renewal(s) seen</source>
        <translation>
            <numerusform>%1 held the lease
%2
%n renewal seen</numerusform>
            <numerusform>%1 held the lease
%2
%n renewals seen</numerusform>
        </translation>
    </message>
</context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
<context>
    <name>Connection</name>
    <message>
        <source>File Registry (folder)</source>
        <translation>Datei-Registry (Ordner)</translation>
    </message>
    <message>
        <source>etcd</source>
        <translation>etcd</translation>
    </message>
    <message>
        <source>Kubernetes namespace</source>
        <translation>Kubernetes-Namespace</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
    <message>
        <source>the Registry folder shared by the participants</source>
        <translation>der Registry-Ordner, den die Teilnehmer teilen</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation>Endpunkte</translation>
    </message>
    <message>
        <source>https://127.0.0.1:2379, one or more, comma-separated</source>
        <translation>https://127.0.0.1:2379, einer oder mehrere, durch Kommas getrennt</translation>
    </message>
    <message>
        <source>Key prefix</source>
        <translation>Schlüsselpräfix</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>optional</translation>
    </message>
    <message>
        <source>User name</source>
        <translation>Benutzername</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Passwort</translation>
    </message>
    <message>
        <source>kept in the system keychain</source>
        <translation>im Schlüsselbund des Systems gespeichert</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA-Zertifikat</translation>
    </message>
    <message>
        <source>PEM file; empty: system CAs</source>
        <translation>PEM-Datei; leer: CAs des Systems</translation>
    </message>
    <message>
        <source>Client certificate</source>
        <translation>Client-Zertifikat</translation>
    </message>
    <message>
        <source>PEM file, optional</source>
        <translation>PEM-Datei, optional</translation>
    </message>
    <message>
        <source>Client key</source>
        <translation>Client-Schlüssel</translation>
    </message>
    <message>
        <source>Kubeconfig</source>
        <translation>Kubeconfig</translation>
    </message>
    <message>
        <source>empty: KUBECONFIG, then ~/.kube/config</source>
        <translation>leer: KUBECONFIG, dann ~/.kube/config</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>Kontext</translation>
    </message>
    <message>
        <source>empty: the current context</source>
        <translation>leer: der aktuelle Kontext</translation>
    </message>
    <message>
        <source>Namespace</source>
        <translation>Namespace</translation>
    </message>
    <message>
        <source>empty: all namespaces</source>
        <translation>leer: alle Namespaces</translation>
    </message>
    <message>
        <source>Bearer token</source>
        <translation>Bearer-Token</translation>
    </message>
    <message>
        <source>optional, overrides the kubeconfig; kept in the system keychain</source>
        <translation>optional, ersetzt das der Kubeconfig; im Schlüsselbund des Systems gespeichert</translation>
    </message>
    <message>
        <source>Timeout (ms)</source>
        <translation>Zeitlimit (ms)</translation>
    </message>
    <message>
        <source>empty: 5000</source>
        <translation>leer: 5000</translation>
    </message>
    <message>
        <source>This host</source>
        <translation>Dieser Rechner</translation>
    </message>
</context>
<context>
    <name>TimingsExplanation</name>
    <message>
        <source>The record does not say its lease duration.</source>
        <translation>Der Eintrag nennt keine Lease-Dauer.</translation>
    </message>
    <message>
        <source>Lease duration</source>
        <translation>Lease-Dauer</translation>
    </message>
    <message>
        <source>Renew interval</source>
        <translation>Erneuerungsintervall</translation>
    </message>
    <message>
        <source>unknown to an observer</source>
        <translation>für einen Beobachter unbekannt</translation>
    </message>
    <message>
        <source>Crash failover</source>
        <translation>Failover nach Absturz</translation>
    </message>
    <message>
        <source>about %1 after the last renewal seen</source>
        <translation>etwa %1 nach der zuletzt gesehenen Erneuerung</translation>
    </message>
    <message>
        <source>Join this election, or wait for a few renewals, to see the step-down deadline and the safety margin.</source>
        <translation>Nehmen Sie an dieser Wahl teil oder warten Sie einige Erneuerungen ab, um die Rücktrittsfrist und die Sicherheitsmarge zu sehen.</translation>
    </message>
    <message>
        <source>Renew interval (estimated)</source>
        <translation>Erneuerungsintervall (geschätzt)</translation>
    </message>
    <message>
        <source>Worst crash failover</source>
        <translation>Längster Failover nach Absturz</translation>
    </message>
    <message>
        <source>within %1 of the leader&apos;s crash</source>
        <translation>innerhalb von %1 nach dem Absturz des Leaders</translation>
    </message>
    <message>
        <source>Clean handover</source>
        <translation>Saubere Übergabe</translation>
    </message>
    <message>
        <source>milliseconds with a watch, else %1</source>
        <translation>Millisekunden mit Watch, sonst %1</translation>
    </message>
    <message>
        <source>Leader steps down after</source>
        <translation>Der Leader tritt zurück nach</translation>
    </message>
    <message>
        <source>%1 without a successful renewal</source>
        <translation>%1 ohne erfolgreiche Erneuerung</translation>
    </message>
    <message>
        <source>Safety margin</source>
        <translation>Sicherheitsmarge</translation>
    </message>
    <message>
        <source>Tolerated clock-rate difference</source>
        <translation>Tolerierte Abweichung der Uhrgeschwindigkeit</translation>
    </message>
    <message>
        <source>The renew interval is the median interval between the renewals this dashboard saw.</source>
        <translation>Das Erneuerungsintervall ist der Median der Abstände zwischen den Erneuerungen, die dieses Dashboard gesehen hat.</translation>
    </message>
</context>
<context>
    <name>baton::CandidateModel</name>
    <message>
        <source>leading</source>
        <translation>führend</translation>
    </message>
    <message>
        <source>live</source>
        <translation>aktiv</translation>
    </message>
    <message>
        <source>standing by</source>
        <translation>in Bereitschaft</translation>
    </message>
    <message>
        <source>drained</source>
        <translation>entleert</translation>
    </message>
    <message>
        <source>gone</source>
        <translation>weg</translation>
    </message>
    <message>
        <source>leading, drained</source>
        <translation>führend, entleert</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nie</translation>
    </message>
    <message>
        <source>%1 (%2 ago)</source>
        <translation>%1 (vor %2)</translation>
    </message>
    <message>
        <source>Holds %1 and is drained: it hands over to another live candidate.</source>
        <translation>Hält %1 und ist entleert: übergibt an einen anderen aktiven Kandidaten.</translation>
    </message>
    <message>
        <source>Holds %1.</source>
        <translation>Hält %1.</translation>
    </message>
    <message>
        <source>Live: takes %1 when it is free.</source>
        <translation>Aktiv: übernimmt %1, wenn er frei ist.</translation>
    </message>
    <message>
        <source>Drained: takes no lease while another candidate is live.</source>
        <translation>Entleert: übernimmt keinen Lease, solange ein anderer Kandidat aktiv ist.</translation>
    </message>
    <message>
        <source>Drained, but no other candidate is live: it still takes %1 when it is free.</source>
        <translation>Entleert, aber kein anderer Kandidat ist aktiv: übernimmt %1 trotzdem, wenn er frei ist.</translation>
    </message>
    <message>
        <source>Stopped: it left the election.</source>
        <translation>Beendet: hat die Wahl verlassen.</translation>
    </message>
    <message>
        <source>No heartbeat for three intervals: it may have stopped.</source>
        <translation>Seit drei Intervallen kein Lebenszeichen: vielleicht beendet.</translation>
    </message>
    <message>
        <source>Drained by %1 %2</source>
        <translation>Entleert von %1 %2</translation>
    </message>
    <message>
        <source>(unknown)</source>
        <translation>(unbekannt)</translation>
    </message>
    <message>
        <source>Heartbeat every %1.</source>
        <translation>Lebenszeichen alle %1.</translation>
    </message>
    <message>
        <source>Labels: %1</source>
        <translation>Labels: %1</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>Instanz</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priorität</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>Letztes Lebenszeichen</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>Labels</translation>
    </message>
</context>
<context>
    <name>baton::CandidateSteering</name>
    <message>
        <source>No connection is open.</source>
        <translation>Keine Verbindung ist geöffnet.</translation>
    </message>
    <message>
        <source>Cannot reach the candidates of %1: %2</source>
        <translation>Die Kandidaten von %1 sind nicht erreichbar: %2</translation>
    </message>
    <message>
        <source>Cannot read the record of %1 for %2: %3</source>
        <translation>Der Eintrag von %1 für %2 kann nicht gelesen werden: %3</translation>
    </message>
    <message>
        <source>%1 was drained for %2 already.</source>
        <translation>%1 war für %2 bereits entleert.</translation>
    </message>
    <message>
        <source>%1 was not drained for %2.</source>
        <translation>%1 war für %2 nicht entleert.</translation>
    </message>
    <message>
        <source>%1 has no record for %2: it is not drained.</source>
        <translation>%1 hat keinen Eintrag für %2: nicht entleert.</translation>
    </message>
    <message>
        <source>%1 is drained for %2.</source>
        <translation>%1 ist für %2 entleert.</translation>
    </message>
    <message>
        <source>%1 is no longer drained for %2.</source>
        <translation>%1 ist für %2 nicht mehr entleert.</translation>
    </message>
    <message>
        <source>The record of %1 for %2 kept changing while it was written; nothing was changed. Try again.</source>
        <translation>Der Eintrag von %1 für %2 änderte sich während des Schreibens immer wieder; nichts wurde geändert. Bitte erneut versuchen.</translation>
    </message>
    <message>
        <source>Cannot write the record of %1 for %2: %3</source>
        <translation>Der Eintrag von %1 für %2 kann nicht geschrieben werden: %3</translation>
    </message>
    <message>
        <source>%1 is not running for %2 now. When it starts, it takes no lease while another candidate is live.</source>
        <translation>%1 läuft gerade nicht für %2. Nach dem Start übernimmt es keinen Lease, solange ein anderer Kandidat aktiv ist.</translation>
    </message>
    <message>
        <source>%1 hands over %2 within one heartbeat (%3) and takes no lease while another candidate is live.</source>
        <translation>%1 übergibt %2 innerhalb eines Lebenszeichens (%3) und übernimmt keinen Lease, solange ein anderer Kandidat aktiv ist.</translation>
    </message>
    <message>
        <source>%1 keeps leading %2 for now: no other candidate is live and not drained. It hands over within one heartbeat (%3) of one coming, and takes no lease while another candidate is live.</source>
        <translation>%1 führt %2 vorerst weiter: kein anderer Kandidat ist aktiv und nicht entleert. Sobald einer kommt, übergibt es innerhalb eines Lebenszeichens (%3) und übernimmt keinen Lease, solange ein anderer Kandidat aktiv ist.</translation>
    </message>
    <message>
        <source>%1 takes no lease of %2 while another candidate is live (within one heartbeat, %3). When no other candidate can lead, it still does.</source>
        <translation>%1 übernimmt den Lease %2 nicht, solange ein anderer Kandidat aktiv ist (innerhalb eines Lebenszeichens, %3). Kann kein anderer Kandidat führen, tut es das trotzdem.</translation>
    </message>
    <message>
        <source>%1 is not running for %2 now. When it starts, it stands for the lease as any other candidate.</source>
        <translation>%1 läuft gerade nicht für %2. Nach dem Start bewirbt es sich um den Lease wie jeder andere Kandidat.</translation>
    </message>
    <message>
        <source>%1 stands for %2 again within one heartbeat (%3): it takes the lease when it is free, and takes it over from a leader of a lower priority.</source>
        <translation>%1 bewirbt sich innerhalb eines Lebenszeichens (%3) wieder um %2: übernimmt den Lease, wenn er frei ist, und von einem Anführer niedrigerer Priorität.</translation>
    </message>
    <message>
        <source>%1 stops its work for %2 and releases the lease; whichever candidate asks first leads next.</source>
        <translation>%1 beendet seine Arbeit für %2 und gibt den Lease frei; der Kandidat, der zuerst anfragt, führt danach.</translation>
    </message>
    <message>
        <source>%1 stops its work for %2 and hands the lease to %3, which leads next; nobody else leads in between. Should %3 not take it, the lease stays free for at most %4.</source>
        <translation>%1 beendet seine Arbeit für %2 und übergibt den Lease an %3, das danach führt; dazwischen führt niemand sonst. Übernimmt %3 ihn nicht, bleibt der Lease höchstens %4 frei.</translation>
    </message>
</context>
<context>
    <name>baton::CandidatesTab</name>
    <message>
        <source>Hand over to…</source>
        <translation>Übergeben an…</translation>
    </message>
    <message>
        <source>Drain…</source>
        <translation>Entleeren…</translation>
    </message>
    <message>
        <source>Undrain…</source>
        <translation>Nicht mehr entleeren…</translation>
    </message>
    <message>
        <source>Ask the leader to hand the lease over to a candidate you pick</source>
        <translation>Den Anführer bitten, den Lease an einen gewählten Kandidaten zu übergeben</translation>
    </message>
    <message>
        <source>The selected candidate hands over and takes no lease while another candidate is live</source>
        <translation>Der gewählte Kandidat übergibt und übernimmt keinen Lease, solange ein anderer Kandidat aktiv ist</translation>
    </message>
    <message>
        <source>The selected candidate stands for the lease again</source>
        <translation>Der gewählte Kandidat bewirbt sich wieder um den Lease</translation>
    </message>
    <message>
        <source>Select a lease to see the instances that stand for it.</source>
        <translation>Einen Lease wählen, um die Instanzen zu sehen, die sich um ihn bewerben.</translation>
    </message>
    <message>
        <source>Reading the candidates of %1…</source>
        <translation>Die Kandidaten von %1 werden gelesen…</translation>
    </message>
    <message>
        <source>No instance announces itself as a candidate for %1.

Every instance that joins the election of a lease writes a candidate record beside it, with its priority and whether it is drained, and renews it at every heartbeat; it shows here.</source>
        <translation>Keine Instanz meldet sich als Kandidat für %1.

Jede Instanz, die an der Wahl eines Leases teilnimmt, schreibt daneben einen Kandidateneintrag mit ihrer Priorität und ob sie entleert ist, und erneuert ihn mit jedem Lebenszeichen; er erscheint hier.</translation>
    </message>
    <message>
        <source>Cannot read the candidates of %1: %2</source>
        <translation>Die Kandidaten von %1 können nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Nobody leads %1 now.</source>
        <translation>Niemand führt %1 gerade.</translation>
    </message>
    <message>
        <source>%1 leads %2.</source>
        <translation>%1 führt %2.</translation>
    </message>
    <message>
        <source>The last read failed: %1</source>
        <translation>Das letzte Lesen schlug fehl: %1</translation>
    </message>
    <message>
        <source>Nobody leads %1 now: there is nothing to hand over.</source>
        <translation>Niemand führt %1 gerade: es gibt nichts zu übergeben.</translation>
    </message>
    <message>
        <source>Drain %1</source>
        <translation>%1 entleeren</translation>
    </message>
    <message>
        <source>Undrain %1</source>
        <translation>%1 nicht mehr entleeren</translation>
    </message>
    <message>
        <source>Drain %1…</source>
        <translation>%1 entleeren…</translation>
    </message>
    <message>
        <source>Undrain %1…</source>
        <translation>%1 nicht mehr entleeren…</translation>
    </message>
    <message>
        <source>Hand over to %1…</source>
        <translation>An %1 übergeben…</translation>
    </message>
    <message>
        <source>Hand over %1 to…</source>
        <translation>%1 übergeben an…</translation>
    </message>
    <message>
        <source>Steering failed</source>
        <translation>Steuerung fehlgeschlagen</translation>
    </message>
</context>
<context>
    <name>baton::ConnectionDialog</name>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Speichern</translation>
    </message>
    <message>
        <source>Save and &amp;open</source>
        <translation>Speichern und ö&amp;ffnen</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>Verbindungen</translation>
    </message>
    <message>
        <source>%1 (coming)</source>
        <translation>%1 (demnächst)</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Browse</source>
        <translation>Durchsuchen</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>Ordner wählen</translation>
    </message>
    <message>
        <source>Choose a file</source>
        <translation>Datei wählen</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>&amp;Neu</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Passwords and tokens are kept in the system keychain, never in the settings file. Leave a secret field empty to keep the stored one.</source>
        <translation>Passwörter und Tokens werden im Schlüsselbund des Systems gespeichert, nie in der Einstellungsdatei. Lassen Sie ein geheimes Feld leer, um den gespeicherten Wert zu behalten.</translation>
    </message>
    <message>
        <source>unchanged (kept in the system keychain)</source>
        <translation>unverändert (im Schlüsselbund des Systems)</translation>
    </message>
    <message>
        <source>New connection</source>
        <translation>Neue Verbindung</translation>
    </message>
    <message>
        <source>Give the connection a name.</source>
        <translation>Geben Sie der Verbindung einen Namen.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is required.</source>
        <translation>„%1“ ist erforderlich.</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Wird gespeichert…</translation>
    </message>
    <message>
        <source>Saved, but the keychain refused the secret: %1</source>
        <translation>Gespeichert, aber der Schlüsselbund hat das Geheimnis abgelehnt: %1</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Gespeichert.</translation>
    </message>
    <message>
        <source>The dashboard observes the Lease objects of this namespace (empty: of all namespaces); it cannot join their elections.</source>
        <translation>Das Dashboard beobachtet die Lease-Objekte dieses Namespace (leer: aller Namespaces); an ihren Wahlen kann es nicht teilnehmen.</translation>
    </message>
    <message>
        <source>Coming: %1 connections can be saved now and will open once this version has their store.</source>
        <translation>Demnächst: %1-Verbindungen lassen sich schon speichern und öffnen sich, sobald diese Version ihren Speicher hat.</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>Verbindung &amp;testen</translation>
    </message>
    <message>
        <source>Read the leases once with these settings, without saving them</source>
        <translation>Die Leases einmal mit diesen Einstellungen lesen, ohne sie zu speichern</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>Wird getestet…</translation>
    </message>
</context>
<context>
    <name>baton::ConnectionProbe</name>
    <message numerus="yes">
        <source>Connected: %n lease(s) found.</source>
        <translation>
            <numerusform>Verbunden: %n Lease gefunden.</numerusform>
            <numerusform>Verbunden: %n Leases gefunden.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::DashboardParticipant</name>
    <message>
        <source>Already taking part in &quot;%1&quot;: step down first.</source>
        <translation>Nimmt bereits an „%1“ teil: zuerst zurücktreten.</translation>
    </message>
    <message>
        <source>This connection has no Registry store to take part through.</source>
        <translation>Diese Verbindung hat keinen Registry-Speicher, über den sie an der Wahl teilnehmen könnte.</translation>
    </message>
</context>
<context>
    <name>baton::DashboardSession</name>
    <message>
        <source>%1 connections are not available in this version of Baton yet.</source>
        <translation>%1-Verbindungen sind in dieser Version von Baton noch nicht verfügbar.</translation>
    </message>
    <message>
        <source>The connection &quot;%1&quot; needs a value for &quot;%2&quot;.</source>
        <translation>Die Verbindung „%1“ braucht einen Wert für „%2“.</translation>
    </message>
    <message>
        <source>%1: no leader since the release, longer than the lease.</source>
        <translation>%1: seit der Freigabe kein Leader, länger als die Lease.</translation>
    </message>
    <message>
        <source>, %1 without a leader</source>
        <translation>, %1 ohne Leader</translation>
    </message>
    <message>
        <source>%1: %2 → %3 (%4%5)</source>
        <translation>%1: %2 → %3 (%4%5)</translation>
    </message>
    <message>
        <source>%1: the lease of %2 ran out unrenewed; no leader.</source>
        <translation>%1: die Lease von %2 ist ohne Erneuerung abgelaufen; kein Leader.</translation>
    </message>
    <message>
        <source>Baton</source>
        <translation>Baton</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… und %n weiterer</numerusform>
            <numerusform>… und %n weitere</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Baton: %n lease(s) changed</source>
        <translation>
            <numerusform>Baton: %n Lease geändert</numerusform>
            <numerusform>Baton: %n Leases geändert</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::FailoverHistoryModel</name>
    <message>
        <source>first acquire</source>
        <translation>erste Übernahme</translation>
    </message>
    <message>
        <source>released</source>
        <translation>freigegeben</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>abgelaufen</translation>
    </message>
    <message>
        <source>taken over</source>
        <translation>übernommen</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keiner)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Time without a leader before the new holder took the lease: from the release seen or, when the old holder stopped renewing, from its last renewal</source>
        <translation>Zeit ohne Leader, bevor der neue Inhaber die Lease übernahm: ab der gesehenen Freigabe oder, wenn der alte Inhaber nicht mehr erneuerte, ab seiner letzten Erneuerung</translation>
    </message>
    <message>
        <source>When</source>
        <translation>Wann</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Lease</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Von</translation>
    </message>
    <message>
        <source>To</source>
        <translation>Nach</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>Without leader</source>
        <translation>Ohne Leader</translation>
    </message>
    <message>
        <source>Recorded by %1 when it took the lease; times by its clock.</source>
        <translation>Von %1 bei der Übernahme der Lease gespeichert; Zeiten nach dessen Uhr.</translation>
    </message>
</context>
<context>
    <name>baton::FleetTimelineWidget</name>
    <message>
        <source>No lease yet.</source>
        <translation>Noch keine Lease.</translation>
    </message>
    <message>
        <source>Open a connection to see every lease over time.</source>
        <translation>Öffnen Sie eine Verbindung, um alle Leases im Zeitverlauf zu sehen.</translation>
    </message>
    <message>
        <source>paused: End or double-click to follow</source>
        <translation>angehalten: Ende oder Doppelklick zum Folgen</translation>
    </message>
    <message>
        <source>%1 → %2 (%3)</source>
        <translation>%1 → %2 (%3)</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>%1: no leader for %2 (released)
%3</source>
        <translation>%1: kein Leader für %2 (freigegeben)
%3</translation>
    </message>
    <message>
        <source>%1: no leader for %2 (%3 stopped renewing)
%4</source>
        <translation>%1: kein Leader für %2 (%3 hat nicht mehr erneuert)
%4</translation>
    </message>
    <message>
        <source>%1: held by %2
%3</source>
        <translation>%1: gehalten von %2
%3</translation>
    </message>
    <message>
        <source>From the stored history: times by the holders&apos; clocks.</source>
        <translation>Aus dem gespeicherten Verlauf: Zeiten nach den Uhren der Inhaber.</translation>
    </message>
</context>
<context>
    <name>baton::HandoverDialog</name>
    <message>
        <source>Hand over %1</source>
        <translation>%1 übergeben</translation>
    </message>
    <message>
        <source>Hand over %1, held by %2, to:</source>
        <translation>%1, gehalten von %2, übergeben an:</translation>
    </message>
    <message>
        <source>Hand over</source>
        <translation>Übergeben</translation>
    </message>
    <message>
        <source>%1 — priority %2, %3</source>
        <translation>%1 — Priorität %2, %3</translation>
    </message>
    <message>
        <source>Whoever asks first (a release)</source>
        <translation>Wer zuerst anfragt (eine Freigabe)</translation>
    </message>
    <message>
        <source>%1 is drained: once it leads, it hands the lease on to another live candidate within one heartbeat.</source>
        <translation>%1 ist entleert: sobald es führt, übergibt es den Lease innerhalb eines Lebenszeichens an einen anderen aktiven Kandidaten.</translation>
    </message>
</context>
<context>
    <name>baton::LeaseDetailPanel</name>
    <message>
        <source>What the timings guarantee</source>
        <translation>Was die Zeiten garantieren</translation>
    </message>
    <message>
        <source>No lease selected</source>
        <translation>Keine Lease ausgewählt</translation>
    </message>
    <message>
        <source>Select a lease in the table to see its holder, renewals and history.</source>
        <translation>Wählen Sie eine Lease in der Tabelle, um Inhaber, Erneuerungen und Verlauf zu sehen.</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>unreadable: %1</source>
        <translation>unlesbar: %1</translation>
    </message>
    <message>
        <source>Holder</source>
        <translation>Inhaber</translation>
    </message>
    <message>
        <source>&lt;i&gt;none&lt;/i&gt; (released %1 ago)</source>
        <translation>&lt;i&gt;keiner&lt;/i&gt; (vor %1 freigegeben)</translation>
    </message>
    <message>
        <source> (this dashboard)</source>
        <translation> (dieses Dashboard)</translation>
    </message>
    <message>
        <source>Held since</source>
        <translation>Gehalten seit</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Last renewal seen</source>
        <translation>Zuletzt gesehene Erneuerung</translation>
    </message>
    <message>
        <source>%1 ago, at %2</source>
        <translation>vor %1, um %2</translation>
    </message>
    <message>
        <source>Expires for a follower</source>
        <translation>Läuft für einen Follower ab</translation>
    </message>
    <message>
        <source>in %1, at %2</source>
        <translation>in %1, um %2</translation>
    </message>
    <message>
        <source>&lt;b style=&quot;color:#d63b3b&quot;&gt;%1 ago&lt;/b&gt;</source>
        <translation>&lt;b style=&quot;color:#d63b3b&quot;&gt;vor %1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Transitions</source>
        <translation>Wechsel</translation>
    </message>
    <message>
        <source>Changes seen</source>
        <translation>Gesehene Wechsel</translation>
    </message>
</context>
<context>
    <name>baton::LeaseTableModel</name>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 T %2 h</translation>
    </message>
    <message>
        <source>(unreadable)</source>
        <translation>(unlesbar)</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keiner)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>unlesbar</translation>
    </message>
    <message>
        <source>no leader</source>
        <translation>kein Leader</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>abgelaufen</translation>
    </message>
    <message>
        <source>held</source>
        <translation>gehalten</translation>
    </message>
    <message>
        <source>No renewal seen for %1, longer than the lease (%2): the holder is presumed gone and any participant may take the lease.</source>
        <translation>Seit %1 keine Erneuerung gesehen, länger als die Lease (%2): der Inhaber gilt als verschwunden, jeder Teilnehmer darf die Lease übernehmen.</translation>
    </message>
    <message>
        <source>Holder changes seen since the dashboard connected</source>
        <translation>Inhaberwechsel, die seit dem Verbinden des Dashboards gesehen wurden</translation>
    </message>
    <message>
        <source>Holder changes recorded in the lease (leaseTransitions)</source>
        <translation>In der Lease vermerkte Inhaberwechsel (leaseTransitions)</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Lease</translation>
    </message>
    <message>
        <source>Holder</source>
        <translation>Inhaber</translation>
    </message>
    <message>
        <source>Held since</source>
        <translation>Gehalten seit</translation>
    </message>
    <message>
        <source>Last renewal</source>
        <translation>Letzte Erneuerung</translation>
    </message>
    <message>
        <source>Changes seen</source>
        <translation>Gesehene Wechsel</translation>
    </message>
    <message>
        <source>Transitions</source>
        <translation>Wechsel</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Time since the record last changed, against the lease duration: amber past half the lease, red past the lease</source>
        <translation>Zeit seit der letzten Änderung des Eintrags, gemessen an der Lease-Dauer: gelb ab der halben Lease, rot nach Ablauf der Lease</translation>
    </message>
    <message>
        <source>Written by the holder, by its clock: acquired %1, renewed %2
Seen by this observer: held since %3, last change %4 ago (lease %5)</source>
        <translation>Vom Inhaber nach seiner Uhr geschrieben: erworben %1, erneuert %2
Von diesem Beobachter gesehen: gehalten seit %3, letzte Änderung vor %4 (Lease %5)</translation>
    </message>
</context>
<context>
    <name>baton::MainWindow</name>
    <message>
        <source>Baton</source>
        <translation>Baton</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Connection </source>
        <translation>Verbindung </translation>
    </message>
    <message>
        <source>Connections…</source>
        <translation>Verbindungen…</translation>
    </message>
    <message>
        <source>Add, edit or remove connections (Ctrl+O)</source>
        <translation>Verbindungen hinzufügen, bearbeiten oder entfernen (Strg+O)</translation>
    </message>
    <message>
        <source>Filter: words match lease or holder; holder:… lease:…  (Ctrl+F)</source>
        <translation>Filter: Wörter suchen in Lease oder Inhaber; holder:… lease:…  (Strg+F)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Holders over time&lt;/b&gt; — wheel: zoom, drag: scroll, hover: exact times</source>
        <translation>&lt;b&gt;Inhaber im Zeitverlauf&lt;/b&gt; — Mausrad: Zoom, Ziehen: Blättern, Überfahren: genaue Zeiten</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>Als CSV exportieren…</translation>
    </message>
    <message>
        <source>Export JSON…</source>
        <translation>Als JSON exportieren…</translation>
    </message>
    <message>
        <source>Failover history</source>
        <translation>Failover-Verlauf</translation>
    </message>
    <message>
        <source>Renew timings</source>
        <translation>Erneuerungszeiten</translation>
    </message>
    <message>
        <source>Baton dashboard</source>
        <translation>Baton-Dashboard</translation>
    </message>
    <message>
        <source>Store: %1</source>
        <translation>Speicher: %1</translation>
    </message>
    <message>
        <source>(none: add one with Connections…)</source>
        <translation>(keine: fügen Sie eine über Verbindungen… hinzu)</translation>
    </message>
    <message>
        <source>%1 — Baton</source>
        <translation>%1 — Baton</translation>
    </message>
    <message numerus="yes">
        <source>%n lease(s)</source>
        <translation>
            <numerusform>%n Lease</numerusform>
            <numerusform>%n Leases</numerusform>
        </translation>
    </message>
    <message>
        <source>That connection no longer exists.</source>
        <translation>Diese Verbindung existiert nicht mehr.</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>%1 wird geöffnet…</translation>
    </message>
    <message>
        <source> (keychain: %1)</source>
        <translation> (Schlüsselbund: %1)</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>%1 kann nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>Connected to %1</source>
        <translation>Verbunden mit %1</translation>
    </message>
    <message>
        <source>No connection yet: add one with Connections… (Ctrl+O)</source>
        <translation>Noch keine Verbindung: fügen Sie eine über Verbindungen… hinzu (Strg+O)</translation>
    </message>
    <message>
        <source>No connection is open.</source>
        <translation>Keine Verbindung ist geöffnet.</translation>
    </message>
    <message>
        <source>Export the failover history</source>
        <translation>Failover-Verlauf exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>History written to %1</source>
        <translation>Verlauf nach %1 geschrieben</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Selected lease</source>
        <translation>Ausgewählte Lease</translation>
    </message>
    <message>
        <source>All leases</source>
        <translation>Alle Leases</translation>
    </message>
    <message>
        <source>Cannot save the connection to this host: %1</source>
        <translation>Die Verbindung zu diesem Rechner kann nicht gespeichert werden: %1</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Candidates</source>
        <translation>Kandidaten</translation>
    </message>
</context>
<context>
    <name>baton::ParticipationPanel</name>
    <message>
        <source>Take part in the election</source>
        <translation>An der Wahl teilnehmen</translation>
    </message>
    <message>
        <source>&amp;Join</source>
        <translation>&amp;Beitreten</translation>
    </message>
    <message>
        <source>&amp;Step down</source>
        <translation>&amp;Zurücktreten</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>lease name</source>
        <translation>Name der Lease</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Lease</translation>
    </message>
    <message>
        <source>Instance id</source>
        <translation>Instanz-ID</translation>
    </message>
    <message>
        <source>renew every</source>
        <translation>erneuern alle</translation>
    </message>
    <message>
        <source>Lease duration</source>
        <translation>Lease-Dauer</translation>
    </message>
    <message>
        <source>Cannot join: %1</source>
        <translation>Beitritt nicht möglich: %1</translation>
    </message>
    <message>
        <source>Not taking part</source>
        <translation>Nimmt nicht teil</translation>
    </message>
    <message>
        <source>Stepping down…</source>
        <translation>Tritt zurück…</translation>
    </message>
    <message>
        <source>&lt;b&gt;Leading&lt;/b&gt;</source>
        <translation>&lt;b&gt;Leader&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Following</source>
        <translation>Follower</translation>
    </message>
    <message>
        <source>Joining is not available on Kubernetes connections yet: the dashboard only observes Lease objects. To take part, run baton join with a KubernetesClusterService.</source>
        <translation>Teilnehmen ist bei Kubernetes-Verbindungen noch nicht möglich: Das Dashboard beobachtet Lease-Objekte nur. Um teilzunehmen, starten Sie baton join mit einem KubernetesClusterService.</translation>
    </message>
</context>
<context>
    <name>baton::RenewTimingWidget</name>
    <message>
        <source>Select a lease to see its renewals.</source>
        <translation>Wählen Sie eine Lease, um ihre Erneuerungen zu sehen.</translation>
    </message>
    <message>
        <source>lease duration %1</source>
        <translation>Lease-Dauer %1</translation>
    </message>
    <message>
        <source>step-down deadline %1</source>
        <translation>Rücktrittsfrist %1</translation>
    </message>
    <message>
        <source>step-down deadline ≈ %1 (renew interval estimated)</source>
        <translation>Rücktrittsfrist ≈ %1 (Erneuerungsintervall geschätzt)</translation>
    </message>
    <message>
        <source>No renewal seen yet: intervals appear from the second change of the record.</source>
        <translation>Noch keine Erneuerung gesehen: Abstände erscheinen ab der zweiten Änderung des Eintrags.</translation>
    </message>
    <message numerus="yes">
        <source>Interval between renewals as seen: median %1, longest %2 (%n sample(s))</source>
        <translation>
            <numerusform>Gesehene Abstände zwischen Erneuerungen: Median %1, längster %2 (%n Messung)</numerusform>
            <numerusform>Gesehene Abstände zwischen Erneuerungen: Median %1, längster %2 (%n Messungen)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::RunHistoryModel</name>
    <message>
        <source>These runs were recorded without their schedule: the next tick and the missed ones are not known.</source>
        <translation>Diese Läufe wurden ohne ihren Zeitplan aufgezeichnet: der nächste Termin und die verpassten sind nicht bekannt.</translation>
    </message>
    <message>
        <source>Schedule %1: next tick %2 (in %3).</source>
        <translation>Zeitplan %1: nächster Termin %2 (in %3).</translation>
    </message>
    <message>
        <source>Schedule %1: no tick comes in the next years.</source>
        <translation>Zeitplan %1: in den nächsten Jahren kommt kein Termin.</translation>
    </message>
    <message>
        <source>Last success: %1 ago.</source>
        <translation>Letzter Erfolg: vor %1.</translation>
    </message>
    <message>
        <source>No run recorded here succeeded.</source>
        <translation>Kein hier aufgezeichneter Lauf war erfolgreich.</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>erfolgreich</translation>
    </message>
    <message>
        <source>interrupted: leadership ended</source>
        <translation>unterbrochen: kein Leader mehr</translation>
    </message>
    <message>
        <source>skipped: previous run still going</source>
        <translation>übersprungen: voriger läuft noch</translation>
    </message>
    <message>
        <source>failed: signal %1</source>
        <translation>fehlgeschlagen: Signal %1</translation>
    </message>
    <message>
        <source>failed: exit code %1</source>
        <translation>fehlgeschlagen: Exit-Code %1</translation>
    </message>
    <message>
        <source>missed</source>
        <translation>verpasst</translation>
    </message>
    <message numerus="yes">
        <source>missed: over %n tick(s), until %1</source>
        <translation>
            <numerusform>verpasst: über %n Termin, bis %1</numerusform>
            <numerusform>verpasst: über %n Termine, bis %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>missed: %n tick(s), until %1</source>
        <translation>
            <numerusform>verpasst: %n Termin, bis %1</numerusform>
            <numerusform>verpasst: %n Termine, bis %1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 so far</source>
        <translation>bisher %1</translation>
    </message>
    <message>
        <source>%1 (attempt %2)</source>
        <translation>%1 (Versuch %2)</translation>
    </message>
    <message numerus="yes">
        <source>No run was recorded for %n tick(s) of the schedule, from %1 to %2.</source>
        <translation>
            <numerusform>Für %n Termin des Zeitplans wurde kein Lauf aufgezeichnet, von %1 bis %2.</numerusform>
            <numerusform>Für %n Termine des Zeitplans wurde kein Lauf aufgezeichnet, von %1 bis %2.</numerusform>
        </translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>noch nicht</translation>
    </message>
    <message>
        <source>Tick %1 (BATON_TICK), run by %2 with fencing token %3.
Started %4, ended %5, by the clock of the instance that recorded it.
%6</source>
        <translation>Termin %1 (BATON_TICK), ausgeführt von %2 mit Fencing-Token %3.
Beginn %4, Ende %5, nach der Uhr der Instanz, die ihn aufgezeichnet hat.
%6</translation>
    </message>
    <message>
        <source>Tick</source>
        <translation>Termin</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>Instanz</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Beginn</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
</context>
<context>
    <name>baton::RunsTab</name>
    <message>
        <source>Select a lease to see the runs of its scheduled work.</source>
        <translation>Wählen Sie ein Lease, um die Läufe seiner geplanten Arbeit zu sehen.</translation>
    </message>
    <message>
        <source>Reading the run records of %1…</source>
        <translation>Die Laufaufzeichnungen von %1 werden gelesen…</translation>
    </message>
    <message>
        <source>No run of scheduled work is recorded for %1.

A lease runs a command on its leader once per tick with baton join --schedule SPEC --exec CMD (for example --schedule &quot;0 3 * * * Europe/Paris&quot;). Each run is recorded before it starts, and shows here: who ran it, when, how it ended, the ticks nobody ran, and the next tick.</source>
        <translation>Für %1 ist kein Lauf geplanter Arbeit aufgezeichnet.

Ein Lease lässt seinen Leader einen Befehl einmal pro Termin ausführen, mit baton join --schedule SPEC --exec CMD (zum Beispiel --schedule &quot;0 3 * * * Europe/Paris&quot;). Jeder Lauf wird vor seinem Beginn aufgezeichnet und erscheint hier: wer ihn ausführte, wann, wie er endete, die Termine, die niemand ausführte, und der nächste Termin.</translation>
    </message>
    <message>
        <source>Cannot read the run records of %1: %2</source>
        <translation>Die Laufaufzeichnungen von %1 können nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The last read failed: %1</source>
        <translation>Das letzte Lesen schlug fehl: %1</translation>
    </message>
</context>
<context>
    <name>baton::ScreenshotDemo</name>
    <message>
        <source>Demo election</source>
        <translation>Demo-Wahl</translation>
    </message>
    <message>
        <source>This host</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>Production etcd</source>
        <translation>Produktions-etcd</translation>
    </message>
</context>
<context>
    <name>baton::TimelineWidget</name>
    <message>
        <source>no leader</source>
        <translation>kein Leader</translation>
    </message>
    <message>
        <source>Select a lease to see its holders over time.</source>
        <translation>Wählen Sie eine Lease, um ihre Inhaber im Zeitverlauf zu sehen.</translation>
    </message>
    <message>
        <source>No holder seen yet</source>
        <translation>Noch kein Inhaber gesehen</translation>
    </message>
    <message>
        <source>paused: End or double-click to follow</source>
        <translation>angehalten: Ende oder Doppelklick zum Folgen</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>No leader for %1 (released)
%2</source>
        <translation>Kein Leader für %1 (freigegeben)
%2</translation>
    </message>
    <message>
        <source>No leader for %1 (%2 stopped renewing)
%3</source>
        <translation>Kein Leader für %1 (%2 hat nicht mehr erneuert)
%3</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message numerus="yes">
        <source>%1 held the lease
%2
%n renewal(s) seen</source>
        <translation>
            <numerusform>%1 hielt die Lease
%2
%n Erneuerung gesehen</numerusform>
            <numerusform>%1 hielt die Lease
%2
%n Erneuerungen gesehen</numerusform>
        </translation>
    </message>
</context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr">
<context>
    <name>Connection</name>
    <message>
        <source>File Registry (folder)</source>
        <translation>Registre fichier (dossier)</translation>
    </message>
    <message>
        <source>etcd</source>
        <translation>etcd</translation>
    </message>
    <message>
        <source>Kubernetes namespace</source>
        <translation>Espace de noms Kubernetes</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Dossier</translation>
    </message>
    <message>
        <source>the Registry folder shared by the participants</source>
        <translation>le dossier du registre partagé par les participants</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation>Points d’accès</translation>
    </message>
    <message>
        <source>https://127.0.0.1:2379, one or more, comma-separated</source>
        <translation>https://127.0.0.1:2379, un ou plusieurs, séparés par des virgules</translation>
    </message>
    <message>
        <source>Key prefix</source>
        <translation>Préfixe des clés</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>facultatif</translation>
    </message>
    <message>
        <source>User name</source>
        <translation>Nom d’utilisateur</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Mot de passe</translation>
    </message>
    <message>
        <source>kept in the system keychain</source>
        <translation>conservé dans le trousseau du système</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>Certificat de l’AC</translation>
    </message>
    <message>
        <source>PEM file; empty: system CAs</source>
        <translation>fichier PEM ; vide : AC du système</translation>
    </message>
    <message>
        <source>Client certificate</source>
        <translation>Certificat client</translation>
    </message>
    <message>
        <source>PEM file, optional</source>
        <translation>fichier PEM, facultatif</translation>
    </message>
    <message>
        <source>Client key</source>
        <translation>Clé client</translation>
    </message>
    <message>
        <source>Kubeconfig</source>
        <translation>Kubeconfig</translation>
    </message>
    <message>
        <source>empty: KUBECONFIG, then ~/.kube/config</source>
        <translation>vide : KUBECONFIG, puis ~/.kube/config</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>Contexte</translation>
    </message>
    <message>
        <source>empty: the current context</source>
        <translation>vide : le contexte courant</translation>
    </message>
    <message>
        <source>Namespace</source>
        <translation>Espace de noms</translation>
    </message>
    <message>
        <source>empty: all namespaces</source>
        <translation>vide : tous les espaces de noms</translation>
    </message>
    <message>
        <source>Bearer token</source>
        <translation>Jeton d’accès (bearer)</translation>
    </message>
    <message>
        <source>optional, overrides the kubeconfig; kept in the system keychain</source>
        <translation>facultatif, remplace celui du kubeconfig ; conservé dans le trousseau du système</translation>
    </message>
    <message>
        <source>Timeout (ms)</source>
        <translation>Délai (ms)</translation>
    </message>
    <message>
        <source>empty: 5000</source>
        <translation>vide : 5000</translation>
    </message>
    <message>
        <source>This host</source>
        <translation>Cette machine</translation>
    </message>
</context>
<context>
    <name>TimingsExplanation</name>
    <message>
        <source>The record does not say its lease duration.</source>
        <translation>L’enregistrement n’indique pas la durée de son bail.</translation>
    </message>
    <message>
        <source>Lease duration</source>
        <translation>Durée du bail</translation>
    </message>
    <message>
        <source>Renew interval</source>
        <translation>Intervalle de renouvellement</translation>
    </message>
    <message>
        <source>unknown to an observer</source>
        <translation>inconnu d’un observateur</translation>
    </message>
    <message>
        <source>Crash failover</source>
        <translation>Bascule après panne</translation>
    </message>
    <message>
        <source>about %1 after the last renewal seen</source>
        <translation>environ %1 après le dernier renouvellement vu</translation>
    </message>
    <message>
        <source>Join this election, or wait for a few renewals, to see the step-down deadline and the safety margin.</source>
        <translation>Participez à cette élection, ou attendez quelques renouvellements, pour voir l’échéance de retrait et la marge de sécurité.</translation>
    </message>
    <message>
        <source>Renew interval (estimated)</source>
        <translation>Intervalle de renouvellement (estimé)</translation>
    </message>
    <message>
        <source>Worst crash failover</source>
        <translation>Pire bascule après panne</translation>
    </message>
    <message>
        <source>within %1 of the leader&apos;s crash</source>
        <translation>dans les %1 qui suivent la panne du leader</translation>
    </message>
    <message>
        <source>Clean handover</source>
        <translation>Passation propre</translation>
    </message>
    <message>
        <source>milliseconds with a watch, else %1</source>
        <translation>quelques millisecondes avec une surveillance, sinon %1</translation>
    </message>
    <message>
        <source>Leader steps down after</source>
        <translation>Le leader se retire après</translation>
    </message>
    <message>
        <source>%1 without a successful renewal</source>
        <translation>%1 sans renouvellement réussi</translation>
    </message>
    <message>
        <source>Safety margin</source>
        <translation>Marge de sécurité</translation>
    </message>
    <message>
        <source>Tolerated clock-rate difference</source>
        <translation>Écart de vitesse d’horloge toléré</translation>
    </message>
    <message>
        <source>The renew interval is the median interval between the renewals this dashboard saw.</source>
        <translation>L’intervalle de renouvellement est l’intervalle médian entre les renouvellements vus par ce tableau de bord.</translation>
    </message>
</context>
<context>
    <name>baton::CandidateModel</name>
    <message>
        <source>leading</source>
        <translation>en tête</translation>
    </message>
    <message>
        <source>live</source>
        <translation>actif</translation>
    </message>
    <message>
        <source>standing by</source>
        <translation>en attente</translation>
    </message>
    <message>
        <source>drained</source>
        <translation>drainé</translation>
    </message>
    <message>
        <source>gone</source>
        <translation>parti</translation>
    </message>
    <message>
        <source>leading, drained</source>
        <translation>en tête, drainé</translation>
    </message>
    <message>
        <source>never</source>
        <translation>jamais</translation>
    </message>
    <message>
        <source>%1 (%2 ago)</source>
        <translation>%1 (il y a %2)</translation>
    </message>
    <message>
        <source>Holds %1 and is drained: it hands over to another live candidate.</source>
        <translation>Détient %1 et est drainé : il passe la main à un autre candidat actif.</translation>
    </message>
    <message>
        <source>Holds %1.</source>
        <translation>Détient %1.</translation>
    </message>
    <message>
        <source>Live: takes %1 when it is free.</source>
        <translation>Actif : prend %1 quand il est libre.</translation>
    </message>
    <message>
        <source>Drained: takes no lease while another candidate is live.</source>
        <translation>Drainé : ne prend aucun bail tant qu’un autre candidat est actif.</translation>
    </message>
    <message>
        <source>Drained, but no other candidate is live: it still takes %1 when it is free.</source>
        <translation>Drainé, mais aucun autre candidat n’est actif : il prend encore %1 quand il est libre.</translation>
    </message>
    <message>
        <source>Stopped: it left the election.</source>
        <translation>Arrêté : il a quitté l’élection.</translation>
    </message>
    <message>
        <source>No heartbeat for three intervals: it may have stopped.</source>
        <translation>Aucun signe de vie depuis trois intervalles : il s’est peut-être arrêté.</translation>
    </message>
    <message>
        <source>Drained by %1 %2</source>
        <translation>Drainé par %1 %2</translation>
    </message>
    <message>
        <source>(unknown)</source>
        <translation>(inconnu)</translation>
    </message>
    <message>
        <source>Heartbeat every %1.</source>
        <translation>Signe de vie toutes les %1.</translation>
    </message>
    <message>
        <source>Labels: %1</source>
        <translation>Étiquettes : %1</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>Instance</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priorité</translation>
    </message>
    <message>
        <source>State</source>
        <translation>État</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>Dernier signe de vie</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>Étiquettes</translation>
    </message>
</context>
<context>
    <name>baton::CandidateSteering</name>
    <message>
        <source>No connection is open.</source>
        <translation>Aucune connexion n’est ouverte.</translation>
    </message>
    <message>
        <source>Cannot reach the candidates of %1: %2</source>
        <translation>Impossible d’atteindre les candidats de %1 : %2</translation>
    </message>
    <message>
        <source>Cannot read the record of %1 for %2: %3</source>
        <translation>Impossible de lire la fiche de %1 pour %2 : %3</translation>
    </message>
    <message>
        <source>%1 was drained for %2 already.</source>
        <translation>%1 était déjà drainé pour %2.</translation>
    </message>
    <message>
        <source>%1 was not drained for %2.</source>
        <translation>%1 n’était pas drainé pour %2.</translation>
    </message>
    <message>
        <source>%1 has no record for %2: it is not drained.</source>
        <translation>%1 n’a pas de fiche pour %2 : il n’est pas drainé.</translation>
    </message>
    <message>
        <source>%1 is drained for %2.</source>
        <translation>%1 est drainé pour %2.</translation>
    </message>
    <message>
        <source>%1 is no longer drained for %2.</source>
        <translation>%1 n’est plus drainé pour %2.</translation>
    </message>
    <message>
        <source>The record of %1 for %2 kept changing while it was written; nothing was changed. Try again.</source>
        <translation>La fiche de %1 pour %2 a changé sans cesse pendant l’écriture ; rien n’a été modifié. Réessayez.</translation>
    </message>
    <message>
        <source>Cannot write the record of %1 for %2: %3</source>
        <translation>Impossible d’écrire la fiche de %1 pour %2 : %3</translation>
    </message>
    <message>
        <source>%1 is not running for %2 now. When it starts, it takes no lease while another candidate is live.</source>
        <translation>%1 ne tourne pas pour %2 en ce moment. À son démarrage, il ne prendra aucun bail tant qu’un autre candidat est actif.</translation>
    </message>
    <message>
        <source>%1 hands over %2 within one heartbeat (%3) and takes no lease while another candidate is live.</source>
        <translation>%1 passe la main pour %2 en un signe de vie (%3) et ne prend aucun bail tant qu’un autre candidat est actif.</translation>
    </message>
    <message>
        <source>%1 keeps leading %2 for now: no other candidate is live and not drained. It hands over within one heartbeat (%3) of one coming, and takes no lease while another candidate is live.</source>
        <translation>%1 reste en tête de %2 pour l’instant : aucun autre candidat n’est actif sans être drainé. Il passe la main en un signe de vie (%3) après l’arrivée d’un tel candidat, et ne prend aucun bail tant qu’un autre candidat est actif.</translation>
    </message>
    <message>
        <source>%1 takes no lease of %2 while another candidate is live (within one heartbeat, %3). When no other candidate can lead, it still does.</source>
        <translation>%1 ne prend pas le bail %2 tant qu’un autre candidat est actif (en un signe de vie, %3). Quand aucun autre candidat ne peut mener, il le prend quand même.</translation>
    </message>
    <message>
        <source>%1 is not running for %2 now. When it starts, it stands for the lease as any other candidate.</source>
        <translation>%1 ne tourne pas pour %2 en ce moment. À son démarrage, il se présente pour le bail comme tout autre candidat.</translation>
    </message>
    <message>
        <source>%1 stands for %2 again within one heartbeat (%3): it takes the lease when it is free, and takes it over from a leader of a lower priority.</source>
        <translation>%1 se présente de nouveau pour %2 en un signe de vie (%3) : il prend le bail quand il est libre, et le reprend à un meneur de priorité plus basse.</translation>
    </message>
    <message>
        <source>%1 stops its work for %2 and releases the lease; whichever candidate asks first leads next.</source>
        <translation>%1 arrête son travail pour %2 et libère le bail ; le premier candidat à le demander mène ensuite.</translation>
    </message>
    <message>
        <source>%1 stops its work for %2 and hands the lease to %3, which leads next; nobody else leads in between. Should %3 not take it, the lease stays free for at most %4.</source>
        <translation>%1 arrête son travail pour %2 et passe le bail à %3, qui mène ensuite ; personne d’autre ne mène entre-temps. Si %3 ne le prend pas, le bail reste libre au plus %4.</translation>
    </message>
</context>
<context>
    <name>baton::CandidatesTab</name>
    <message>
        <source>Hand over to…</source>
        <translation>Passer la main à…</translation>
    </message>
    <message>
        <source>Drain…</source>
        <translation>Drainer…</translation>
    </message>
    <message>
        <source>Undrain…</source>
        <translation>Ne plus drainer…</translation>
    </message>
    <message>
        <source>Ask the leader to hand the lease over to a candidate you pick</source>
        <translation>Demander au meneur de passer le bail au candidat choisi</translation>
    </message>
    <message>
        <source>The selected candidate hands over and takes no lease while another candidate is live</source>
        <translation>Le candidat choisi passe la main et ne prend aucun bail tant qu’un autre candidat est actif</translation>
    </message>
    <message>
        <source>The selected candidate stands for the lease again</source>
        <translation>Le candidat choisi se présente de nouveau pour le bail</translation>
    </message>
    <message>
        <source>Select a lease to see the instances that stand for it.</source>
        <translation>Choisissez un bail pour voir les instances qui se présentent pour lui.</translation>
    </message>
    <message>
        <source>Reading the candidates of %1…</source>
        <translation>Lecture des candidats de %1…</translation>
    </message>
    <message>
        <source>No instance announces itself as a candidate for %1.

Every instance that joins the election of a lease writes a candidate record beside it, with its priority and whether it is drained, and renews it at every heartbeat; it shows here.</source>
        <translation>Aucune instance ne se déclare candidate pour %1.

Chaque instance qui rejoint l’élection d’un bail écrit une fiche de candidat à côté, avec sa priorité et si elle est drainée, et la renouvelle à chaque signe de vie ; elle s’affiche ici.</translation>
    </message>
    <message>
        <source>Cannot read the candidates of %1: %2</source>
        <translation>Impossible de lire les candidats de %1 : %2</translation>
    </message>
    <message>
        <source>Nobody leads %1 now.</source>
        <translation>Personne ne mène %1 en ce moment.</translation>
    </message>
    <message>
        <source>%1 leads %2.</source>
        <translation>%1 mène %2.</translation>
    </message>
    <message>
        <source>The last read failed: %1</source>
        <translation>La dernière lecture a échoué : %1</translation>
    </message>
    <message>
        <source>Nobody leads %1 now: there is nothing to hand over.</source>
        <translation>Personne ne mène %1 en ce moment : il n’y a rien à passer.</translation>
    </message>
    <message>
        <source>Drain %1</source>
        <translation>Drainer %1</translation>
    </message>
    <message>
        <source>Undrain %1</source>
        <translation>Ne plus drainer %1</translation>
    </message>
    <message>
        <source>Drain %1…</source>
        <translation>Drainer %1…</translation>
    </message>
    <message>
        <source>Undrain %1…</source>
        <translation>Ne plus drainer %1…</translation>
    </message>
    <message>
        <source>Hand over to %1…</source>
        <translation>Passer la main à %1…</translation>
    </message>
    <message>
        <source>Hand over %1 to…</source>
        <translation>Passer %1 à…</translation>
    </message>
    <message>
        <source>Steering failed</source>
        <translation>Le pilotage a échoué</translation>
    </message>
</context>
<context>
    <name>baton::ConnectionDialog</name>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Enregistrer</translation>
    </message>
    <message>
        <source>Save and &amp;open</source>
        <translation>Enregistrer et &amp;ouvrir</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Supprimer</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>Connexions</translation>
    </message>
    <message>
        <source>%1 (coming)</source>
        <translation>%1 (à venir)</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Browse</source>
        <translation>Parcourir</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>Choisir un dossier</translation>
    </message>
    <message>
        <source>Choose a file</source>
        <translation>Choisir un fichier</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>&amp;Nouvelle</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nom</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Type</translation>
    </message>
    <message>
        <source>Passwords and tokens are kept in the system keychain, never in the settings file. Leave a secret field empty to keep the stored one.</source>
        <translation>Les mots de passe et les jetons sont conservés dans le trousseau du système, jamais dans le fichier de réglages. Laissez un champ secret vide pour garder la valeur enregistrée.</translation>
    </message>
    <message>
        <source>unchanged (kept in the system keychain)</source>
        <translation>inchangé (conservé dans le trousseau du système)</translation>
    </message>
    <message>
        <source>New connection</source>
        <translation>Nouvelle connexion</translation>
    </message>
    <message>
        <source>Give the connection a name.</source>
        <translation>Donnez un nom à la connexion.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is required.</source>
        <translation>« %1 » est obligatoire.</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Enregistrement…</translation>
    </message>
    <message>
        <source>Saved, but the keychain refused the secret: %1</source>
        <translation>Enregistrée, mais le trousseau a refusé le secret : %1</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Enregistrée.</translation>
    </message>
    <message>
        <source>The dashboard observes the Lease objects of this namespace (empty: of all namespaces); it cannot join their elections.</source>
        <translation>Le tableau de bord observe les objets Lease de cet espace de noms (vide : de tous les espaces de noms) ; il ne peut pas prendre part à leurs élections.</translation>
    </message>
    <message>
        <source>Coming: %1 connections can be saved now and will open once this version has their store.</source>
        <translation>À venir : les connexions %1 peuvent déjà être enregistrées et s’ouvriront dès que cette version aura leur magasin.</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>&amp;Tester la connexion</translation>
    </message>
    <message>
        <source>Read the leases once with these settings, without saving them</source>
        <translation>Lire les baux une fois avec ces réglages, sans les enregistrer</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>Test en cours…</translation>
    </message>
</context>
<context>
    <name>baton::ConnectionProbe</name>
    <message numerus="yes">
        <source>Connected: %n lease(s) found.</source>
        <translation>
            <numerusform>Connecté : %n bail trouvé.</numerusform>
            <numerusform>Connecté : %n baux trouvés.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::DashboardParticipant</name>
    <message>
        <source>Already taking part in &quot;%1&quot;: step down first.</source>
        <translation>Participe déjà à « %1 » : retirez-vous d’abord.</translation>
    </message>
    <message>
        <source>This connection has no Registry store to take part through.</source>
        <translation>Cette connexion n’a pas de magasin Registry par lequel prendre part à l’élection.</translation>
    </message>
</context>
<context>
    <name>baton::DashboardSession</name>
    <message>
        <source>%1 connections are not available in this version of Baton yet.</source>
        <translation>Les connexions %1 ne sont pas encore disponibles dans cette version de Baton.</translation>
    </message>
    <message>
        <source>The connection &quot;%1&quot; needs a value for &quot;%2&quot;.</source>
        <translation>La connexion « %1 » demande une valeur pour « %2 ».</translation>
    </message>
    <message>
        <source>%1: no leader since the release, longer than the lease.</source>
        <translation>%1 : aucun leader depuis la libération, plus longtemps que le bail.</translation>
    </message>
    <message>
        <source>, %1 without a leader</source>
        <translation>, %1 sans leader</translation>
    </message>
    <message>
        <source>%1: %2 → %3 (%4%5)</source>
        <translation>%1 : %2 → %3 (%4%5)</translation>
    </message>
    <message>
        <source>%1: the lease of %2 ran out unrenewed; no leader.</source>
        <translation>%1 : le bail de %2 a expiré sans renouvellement ; aucun leader.</translation>
    </message>
    <message>
        <source>Baton</source>
        <translation>Baton</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… et %n autre</numerusform>
            <numerusform>… et %n autres</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Baton: %n lease(s) changed</source>
        <translation>
            <numerusform>Baton : %n bail a changé</numerusform>
            <numerusform>Baton : %n baux ont changé</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::FailoverHistoryModel</name>
    <message>
        <source>first acquire</source>
        <translation>première acquisition</translation>
    </message>
    <message>
        <source>released</source>
        <translation>libéré</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>expiré</translation>
    </message>
    <message>
        <source>taken over</source>
        <translation>repris</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(aucun)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>aucun</translation>
    </message>
    <message>
        <source>Time without a leader before the new holder took the lease: from the release seen or, when the old holder stopped renewing, from its last renewal</source>
        <translation>Temps sans leader avant que le nouveau détenteur prenne le bail : depuis la libération vue ou, quand l’ancien détenteur a cessé de renouveler, depuis son dernier renouvellement</translation>
    </message>
    <message>
        <source>When</source>
        <translation>Quand</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Bail</translation>
    </message>
    <message>
        <source>From</source>
        <translation>De</translation>
    </message>
    <message>
        <source>To</source>
        <translation>À</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Cause</translation>
    </message>
    <message>
        <source>Without leader</source>
        <translation>Sans leader</translation>
    </message>
    <message>
        <source>Recorded by %1 when it took the lease; times by its clock.</source>
        <translation>Enregistré par %1 quand il a pris le bail ; heures selon son horloge.</translation>
    </message>
</context>
<context>
    <name>baton::FleetTimelineWidget</name>
    <message>
        <source>No lease yet.</source>
        <translation>Aucun bail pour l’instant.</translation>
    </message>
    <message>
        <source>Open a connection to see every lease over time.</source>
        <translation>Ouvrez une connexion pour voir tous les baux dans le temps.</translation>
    </message>
    <message>
        <source>paused: End or double-click to follow</source>
        <translation>en pause : Fin ou double-clic pour suivre</translation>
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
        <translation>maintenant</translation>
    </message>
    <message>
        <source>%1: no leader for %2 (released)
%3</source>
        <translation>%1 : aucun leader pendant %2 (libéré)
%3</translation>
    </message>
    <message>
        <source>%1: no leader for %2 (%3 stopped renewing)
%4</source>
        <translation>%1 : aucun leader pendant %2 (%3 a cessé de renouveler)
%4</translation>
    </message>
    <message>
        <source>%1: held by %2
%3</source>
        <translation>%1 : détenu par %2
%3</translation>
    </message>
    <message>
        <source>From the stored history: times by the holders&apos; clocks.</source>
        <translation>D’après l’historique enregistré : heures selon les horloges des détenteurs.</translation>
    </message>
</context>
<context>
    <name>baton::HandoverDialog</name>
    <message>
        <source>Hand over %1</source>
        <translation>Passer %1</translation>
    </message>
    <message>
        <source>Hand over %1, held by %2, to:</source>
        <translation>Passer %1, détenu par %2, à :</translation>
    </message>
    <message>
        <source>Hand over</source>
        <translation>Passer la main</translation>
    </message>
    <message>
        <source>%1 — priority %2, %3</source>
        <translation>%1 — priorité %2, %3</translation>
    </message>
    <message>
        <source>Whoever asks first (a release)</source>
        <translation>Le premier qui demande (une libération)</translation>
    </message>
    <message>
        <source>%1 is drained: once it leads, it hands the lease on to another live candidate within one heartbeat.</source>
        <translation>%1 est drainé : une fois en tête, il passe le bail à un autre candidat actif en un signe de vie.</translation>
    </message>
</context>
<context>
    <name>baton::LeaseDetailPanel</name>
    <message>
        <source>What the timings guarantee</source>
        <translation>Ce que garantissent les délais</translation>
    </message>
    <message>
        <source>No lease selected</source>
        <translation>Aucun bail sélectionné</translation>
    </message>
    <message>
        <source>Select a lease in the table to see its holder, renewals and history.</source>
        <translation>Sélectionnez un bail dans le tableau pour voir son détenteur, ses renouvellements et son historique.</translation>
    </message>
    <message>
        <source>State</source>
        <translation>État</translation>
    </message>
    <message>
        <source>unreadable: %1</source>
        <translation>illisible : %1</translation>
    </message>
    <message>
        <source>Holder</source>
        <translation>Détenteur</translation>
    </message>
    <message>
        <source>&lt;i&gt;none&lt;/i&gt; (released %1 ago)</source>
        <translation>&lt;i&gt;aucun&lt;/i&gt; (libéré il y a %1)</translation>
    </message>
    <message>
        <source> (this dashboard)</source>
        <translation> (ce tableau de bord)</translation>
    </message>
    <message>
        <source>Held since</source>
        <translation>Détenu depuis</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Last renewal seen</source>
        <translation>Dernier renouvellement vu</translation>
    </message>
    <message>
        <source>%1 ago, at %2</source>
        <translation>il y a %1, à %2</translation>
    </message>
    <message>
        <source>Expires for a follower</source>
        <translation>Expire pour un suiveur</translation>
    </message>
    <message>
        <source>in %1, at %2</source>
        <translation>dans %1, à %2</translation>
    </message>
    <message>
        <source>&lt;b style=&quot;color:#d63b3b&quot;&gt;%1 ago&lt;/b&gt;</source>
        <translation>&lt;b style=&quot;color:#d63b3b&quot;&gt;il y a %1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Transitions</source>
        <translation>Transitions</translation>
    </message>
    <message>
        <source>Changes seen</source>
        <translation>Changements vus</translation>
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
        <translation>%1 j %2 h</translation>
    </message>
    <message>
        <source>(unreadable)</source>
        <translation>(illisible)</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(aucun)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 sur %2</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>illisible</translation>
    </message>
    <message>
        <source>no leader</source>
        <translation>sans leader</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>expiré</translation>
    </message>
    <message>
        <source>held</source>
        <translation>détenu</translation>
    </message>
    <message>
        <source>No renewal seen for %1, longer than the lease (%2): the holder is presumed gone and any participant may take the lease.</source>
        <translation>Aucun renouvellement vu depuis %1, plus longtemps que le bail (%2) : le détenteur est présumé parti et tout participant peut prendre le bail.</translation>
    </message>
    <message>
        <source>Holder changes seen since the dashboard connected</source>
        <translation>Changements de détenteur vus depuis la connexion du tableau de bord</translation>
    </message>
    <message>
        <source>Holder changes recorded in the lease (leaseTransitions)</source>
        <translation>Changements de détenteur enregistrés dans le bail (leaseTransitions)</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Bail</translation>
    </message>
    <message>
        <source>Holder</source>
        <translation>Détenteur</translation>
    </message>
    <message>
        <source>Held since</source>
        <translation>Détenu depuis</translation>
    </message>
    <message>
        <source>Last renewal</source>
        <translation>Renouvellement</translation>
    </message>
    <message>
        <source>Changes seen</source>
        <translation>Changements</translation>
    </message>
    <message>
        <source>Transitions</source>
        <translation>Transitions</translation>
    </message>
    <message>
        <source>State</source>
        <translation>État</translation>
    </message>
    <message>
        <source>Time since the record last changed, against the lease duration: amber past half the lease, red past the lease</source>
        <translation>Temps depuis le dernier changement de l’enregistrement, rapporté à la durée du bail : ambre après la moitié du bail, rouge au-delà du bail</translation>
    </message>
    <message>
        <source>Written by the holder, by its clock: acquired %1, renewed %2
Seen by this observer: held since %3, last change %4 ago (lease %5)</source>
        <translation>Écrit par le détenteur, selon son horloge : acquis %1, renouvelé %2
Vu par cet observateur : détenu depuis %3, dernier changement il y a %4 (bail %5)</translation>
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
        <translation>Connexion</translation>
    </message>
    <message>
        <source>Connection </source>
        <translation>Connexion </translation>
    </message>
    <message>
        <source>Connections…</source>
        <translation>Connexions…</translation>
    </message>
    <message>
        <source>Add, edit or remove connections (Ctrl+O)</source>
        <translation>Ajouter, modifier ou supprimer des connexions (Ctrl+O)</translation>
    </message>
    <message>
        <source>Filter: words match lease or holder; holder:… lease:…  (Ctrl+F)</source>
        <translation>Filtre : les mots cherchent dans le bail ou le détenteur ; holder:… lease:…  (Ctrl+F)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Holders over time&lt;/b&gt; — wheel: zoom, drag: scroll, hover: exact times</source>
        <translation>&lt;b&gt;Détenteurs au fil du temps&lt;/b&gt; — molette : zoom, glisser : défiler, survol : heures exactes</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>Exporter en CSV…</translation>
    </message>
    <message>
        <source>Export JSON…</source>
        <translation>Exporter en JSON…</translation>
    </message>
    <message>
        <source>Failover history</source>
        <translation>Historique des bascules</translation>
    </message>
    <message>
        <source>Renew timings</source>
        <translation>Délais de renouvellement</translation>
    </message>
    <message>
        <source>Baton dashboard</source>
        <translation>Tableau de bord Baton</translation>
    </message>
    <message>
        <source>Store: %1</source>
        <translation>Magasin : %1</translation>
    </message>
    <message>
        <source>(none: add one with Connections…)</source>
        <translation>(aucune : ajoutez-en une avec Connexions…)</translation>
    </message>
    <message>
        <source>%1 — Baton</source>
        <translation>%1 — Baton</translation>
    </message>
    <message numerus="yes">
        <source>%n lease(s)</source>
        <translation>
            <numerusform>%n bail</numerusform>
            <numerusform>%n baux</numerusform>
        </translation>
    </message>
    <message>
        <source>That connection no longer exists.</source>
        <translation>Cette connexion n’existe plus.</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>Ouverture de %1…</translation>
    </message>
    <message>
        <source> (keychain: %1)</source>
        <translation> (trousseau : %1)</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>Impossible d’ouvrir %1 : %2</translation>
    </message>
    <message>
        <source>Connected to %1</source>
        <translation>Connecté à %1</translation>
    </message>
    <message>
        <source>No connection yet: add one with Connections… (Ctrl+O)</source>
        <translation>Aucune connexion : ajoutez-en une avec Connexions… (Ctrl+O)</translation>
    </message>
    <message>
        <source>No connection is open.</source>
        <translation>Aucune connexion n’est ouverte.</translation>
    </message>
    <message>
        <source>Export the failover history</source>
        <translation>Exporter l’historique des bascules</translation>
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
        <translation>Historique écrit dans %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>Impossible d’écrire %1 : %2</translation>
    </message>
    <message>
        <source>Selected lease</source>
        <translation>Bail sélectionné</translation>
    </message>
    <message>
        <source>All leases</source>
        <translation>Tous les baux</translation>
    </message>
    <message>
        <source>Cannot save the connection to this host: %1</source>
        <translation>Impossible d’enregistrer la connexion à cette machine : %1</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Exécutions</translation>
    </message>
    <message>
        <source>Candidates</source>
        <translation>Candidats</translation>
    </message>
</context>
<context>
    <name>baton::ParticipationPanel</name>
    <message>
        <source>Take part in the election</source>
        <translation>Participer à l’élection</translation>
    </message>
    <message>
        <source>&amp;Join</source>
        <translation>&amp;Rejoindre</translation>
    </message>
    <message>
        <source>&amp;Step down</source>
        <translation>Se &amp;retirer</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>lease name</source>
        <translation>nom du bail</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Bail</translation>
    </message>
    <message>
        <source>Instance id</source>
        <translation>Identifiant d’instance</translation>
    </message>
    <message>
        <source>renew every</source>
        <translation>renouveler toutes les</translation>
    </message>
    <message>
        <source>Lease duration</source>
        <translation>Durée du bail</translation>
    </message>
    <message>
        <source>Cannot join: %1</source>
        <translation>Impossible de rejoindre : %1</translation>
    </message>
    <message>
        <source>Not taking part</source>
        <translation>Ne participe pas</translation>
    </message>
    <message>
        <source>Stepping down…</source>
        <translation>Retrait en cours…</translation>
    </message>
    <message>
        <source>&lt;b&gt;Leading&lt;/b&gt;</source>
        <translation>&lt;b&gt;Leader&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Following</source>
        <translation>Suiveur</translation>
    </message>
    <message>
        <source>Joining is not available on Kubernetes connections yet: the dashboard only observes Lease objects. To take part, run baton join with a KubernetesClusterService.</source>
        <translation>Rejoindre n’est pas encore possible sur une connexion Kubernetes : le tableau de bord ne fait qu’observer les objets Lease. Pour prendre part à l’élection, lancez baton join avec un KubernetesClusterService.</translation>
    </message>
</context>
<context>
    <name>baton::RenewTimingWidget</name>
    <message>
        <source>Select a lease to see its renewals.</source>
        <translation>Sélectionnez un bail pour voir ses renouvellements.</translation>
    </message>
    <message>
        <source>lease duration %1</source>
        <translation>durée du bail %1</translation>
    </message>
    <message>
        <source>step-down deadline %1</source>
        <translation>échéance de retrait %1</translation>
    </message>
    <message>
        <source>step-down deadline ≈ %1 (renew interval estimated)</source>
        <translation>échéance de retrait ≈ %1 (intervalle de renouvellement estimé)</translation>
    </message>
    <message>
        <source>No renewal seen yet: intervals appear from the second change of the record.</source>
        <translation>Aucun renouvellement vu : les intervalles apparaissent dès le deuxième changement de l’enregistrement.</translation>
    </message>
    <message numerus="yes">
        <source>Interval between renewals as seen: median %1, longest %2 (%n sample(s))</source>
        <translation>
            <numerusform>Intervalle entre renouvellements vus : médiane %1, maximum %2 (%n échantillon)</numerusform>
            <numerusform>Intervalle entre renouvellements vus : médiane %1, maximum %2 (%n échantillons)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>baton::RunHistoryModel</name>
    <message>
        <source>These runs were recorded without their schedule: the next tick and the missed ones are not known.</source>
        <translation>Ces exécutions ont été enregistrées sans leur planification : la prochaine échéance et les échéances manquées ne sont pas connues.</translation>
    </message>
    <message>
        <source>Schedule %1: next tick %2 (in %3).</source>
        <translation>Planification %1 : prochaine échéance %2 (dans %3).</translation>
    </message>
    <message>
        <source>Schedule %1: no tick comes in the next years.</source>
        <translation>Planification %1 : aucune échéance dans les prochaines années.</translation>
    </message>
    <message>
        <source>Last success: %1 ago.</source>
        <translation>Dernier succès : il y a %1.</translation>
    </message>
    <message>
        <source>No run recorded here succeeded.</source>
        <translation>Aucune exécution enregistrée ici n’a réussi.</translation>
    </message>
    <message>
        <source>running</source>
        <translation>en cours</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>réussie</translation>
    </message>
    <message>
        <source>interrupted: leadership ended</source>
        <translation>interrompue : fin du leadership</translation>
    </message>
    <message>
        <source>skipped: previous run still going</source>
        <translation>sautée : précédente en cours</translation>
    </message>
    <message>
        <source>failed: signal %1</source>
        <translation>échec : signal %1</translation>
    </message>
    <message>
        <source>failed: exit code %1</source>
        <translation>échec : code de sortie %1</translation>
    </message>
    <message>
        <source>missed</source>
        <translation>manquée</translation>
    </message>
    <message numerus="yes">
        <source>missed: over %n tick(s), until %1</source>
        <translation>
            <numerusform>manquée : plus de %n échéance, jusqu’à %1</numerusform>
            <numerusform>manquées : plus de %n échéances, jusqu’à %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>missed: %n tick(s), until %1</source>
        <translation>
            <numerusform>manquée : %n échéance, jusqu’à %1</numerusform>
            <numerusform>manquées : %n échéances, jusqu’à %1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 so far</source>
        <translation>%1 jusqu’ici</translation>
    </message>
    <message>
        <source>%1 (attempt %2)</source>
        <translation>%1 (tentative %2)</translation>
    </message>
    <message numerus="yes">
        <source>No run was recorded for %n tick(s) of the schedule, from %1 to %2.</source>
        <translation>
            <numerusform>Aucune exécution enregistrée pour %n échéance de la planification, de %1 à %2.</numerusform>
            <numerusform>Aucune exécution enregistrée pour %n échéances de la planification, de %1 à %2.</numerusform>
        </translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>pas encore</translation>
    </message>
    <message>
        <source>Tick %1 (BATON_TICK), run by %2 with fencing token %3.
Started %4, ended %5, by the clock of the instance that recorded it.
%6</source>
        <translation>Échéance %1 (BATON_TICK), exécutée par %2 avec le jeton de fencing %3.
Début %4, fin %5, selon l’horloge de l’instance qui l’a enregistrée.
%6</translation>
    </message>
    <message>
        <source>Tick</source>
        <translation>Échéance</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>Instance</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Début</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Durée</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Résultat</translation>
    </message>
</context>
<context>
    <name>baton::RunsTab</name>
    <message>
        <source>Select a lease to see the runs of its scheduled work.</source>
        <translation>Sélectionnez un bail pour voir les exécutions de sa tâche planifiée.</translation>
    </message>
    <message>
        <source>Reading the run records of %1…</source>
        <translation>Lecture des exécutions de %1…</translation>
    </message>
    <message>
        <source>No run of scheduled work is recorded for %1.

A lease runs a command on its leader once per tick with baton join --schedule SPEC --exec CMD (for example --schedule &quot;0 3 * * * Europe/Paris&quot;). Each run is recorded before it starts, and shows here: who ran it, when, how it ended, the ticks nobody ran, and the next tick.</source>
        <translation>Aucune exécution de tâche planifiée n’est enregistrée pour %1.

Un bail fait exécuter une commande par son leader une fois par échéance avec baton join --schedule SPEC --exec CMD (par exemple --schedule &quot;0 3 * * * Europe/Paris&quot;). Chaque exécution est enregistrée avant de commencer et s’affiche ici : qui l’a exécutée, quand, comment elle s’est terminée, les échéances que personne n’a exécutées, et la prochaine échéance.</translation>
    </message>
    <message>
        <source>Cannot read the run records of %1: %2</source>
        <translation>Impossible de lire les exécutions de %1 : %2</translation>
    </message>
    <message>
        <source>The last read failed: %1</source>
        <translation>La dernière lecture a échoué : %1</translation>
    </message>
</context>
<context>
    <name>baton::ScreenshotDemo</name>
    <message>
        <source>Demo election</source>
        <translation>Élection de démonstration</translation>
    </message>
    <message>
        <source>This host</source>
        <translation>Cette machine</translation>
    </message>
    <message>
        <source>Production etcd</source>
        <translation>etcd de production</translation>
    </message>
</context>
<context>
    <name>baton::TimelineWidget</name>
    <message>
        <source>no leader</source>
        <translation>sans leader</translation>
    </message>
    <message>
        <source>Select a lease to see its holders over time.</source>
        <translation>Sélectionnez un bail pour voir ses détenteurs au fil du temps.</translation>
    </message>
    <message>
        <source>No holder seen yet</source>
        <translation>Aucun détenteur vu</translation>
    </message>
    <message>
        <source>paused: End or double-click to follow</source>
        <translation>en pause : Fin ou double-clic pour suivre</translation>
    </message>
    <message>
        <source>now</source>
        <translation>maintenant</translation>
    </message>
    <message>
        <source>No leader for %1 (released)
%2</source>
        <translation>Aucun leader pendant %1 (libéré)
%2</translation>
    </message>
    <message>
        <source>No leader for %1 (%2 stopped renewing)
%3</source>
        <translation>Aucun leader pendant %1 (%2 a cessé de renouveler)
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
            <numerusform>%1 détenait le bail
%2
%n renouvellement vu</numerusform>
            <numerusform>%1 détenait le bail
%2
%n renouvellements vus</numerusform>
        </translation>
    </message>
</context>
</TS>

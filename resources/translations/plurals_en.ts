<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>Stats</name>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n thread</numerusform>
            <numerusform>%n threads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::ChatPresetBar</name>
    <message numerus="yes">
        <source>Imported %n chat preset(s) from %1.</source>
        <translation>
            <numerusform>Imported %n chat preset from %1.</numerusform>
            <numerusform>Imported %n chat presets from %1.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n chat preset(s) to %1.</source>
        <translation>
            <numerusform>Exported %n chat preset to %1.</numerusform>
            <numerusform>Exported %n chat presets to %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderCaptionDialog</name>
    <message numerus="yes">
        <source>The selected (%n image(s))</source>
        <translation>
            <numerusform>The selected (%n image)</numerusform>
            <numerusform>The selected (%n images)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n preset(s) from %1.</source>
        <translation>
            <numerusform>Imported %n preset from %1.</numerusform>
            <numerusform>Imported %n presets from %1.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n preset(s) to %1.</source>
        <translation>
            <numerusform>Exported %n preset to %1.</numerusform>
            <numerusform>Exported %n presets to %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderReplaceDialog</name>
    <message numerus="yes">
        <source>None of the %n caption file(s) matches.</source>
        <translation>
            <numerusform>The %n caption file does not match.</numerusform>
            <numerusform>None of the %n caption files matches.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n change</numerusform>
            <numerusform>%n changes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n caption file(s)</source>
        <translation>
            <numerusform>%n caption file</numerusform>
            <numerusform>%n caption files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Changed %n caption file(s).</source>
        <translation>
            <numerusform>Changed %n caption file.</numerusform>
            <numerusform>Changed %n caption files.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Left %n file(s) changed since the preview</source>
        <translation>
            <numerusform>Left %n file changed since the preview</numerusform>
            <numerusform>Left %n files changed since the preview</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Undone: %n caption file(s) put back.</source>
        <translation>
            <numerusform>Undone: %n caption file put back.</numerusform>
            <numerusform>Undone: %n caption files put back.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Left %n file(s) edited since</source>
        <translation>
            <numerusform>Left %n file edited since</numerusform>
            <numerusform>Left %n files edited since</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderWindow</name>
    <message numerus="yes">
        <source>%n image(s)</source>
        <translation>
            <numerusform>%n image</numerusform>
            <numerusform>%n images</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::ServerPanel</name>
    <message numerus="yes">
        <source>%n request(s) (the last %1 are kept)</source>
        <translation>
            <numerusform>%n request (the last %1 are kept)</numerusform>
            <numerusform>%n requests (the last %1 are kept)</numerusform>
        </translation>
    </message>
</context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>DataFolder</name>
    <message>
        <source>Could not create %1; %2 was left where it is.</source>
        <translation>%1 konnte nicht angelegt werden; %2 blieb, wo es ist.</translation>
    </message>
    <message>
        <source>Could not move %1 to %2.</source>
        <translation>%1 konnte nicht nach %2 verschoben werden.</translation>
    </message>
    <message>
        <source>%1 was left where it is: %2 already exists.</source>
        <translation>%1 blieb, wo es ist: %2 existiert bereits.</translation>
    </message>
</context>
<context>
    <name>HeatmapWidget</name>
    <message>
        <source>No attention map.</source>
        <translation>Keine Aufmerksamkeitskarte.</translation>
    </message>
    <message>
        <source>row %1, col %2 (%3%)</source>
        <translation>Zeile %1, Spalte %2 (%3 %)</translation>
    </message>
    <message>
        <source>Strongest cells: %1.</source>
        <translation>Stärkste Zellen: %1.</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Cannot save %1. Free some disk space or check the folder&apos;s permissions.</source>
        <translation>%1 kann nicht gespeichert werden. Schaffen Sie Platz auf dem Laufwerk oder prüfen Sie die Berechtigungen des Ordners.</translation>
    </message>
    <message>
        <source>about %1 s left</source>
        <translation>noch etwa %1 s</translation>
    </message>
    <message>
        <source>about %1 min left</source>
        <translation>noch etwa %1 min</translation>
    </message>
    <message>
        <source>about %1 h %2 min left</source>
        <translation>noch etwa %1 h %2 min</translation>
    </message>
    <message>
        <source>Caption presets: %1 (%2)</source>
        <translation>Beschriftungsvorlagen: %1 (%2)</translation>
    </message>
    <message>
        <source>set aside as %1</source>
        <translation>beiseitegelegt als %1</translation>
    </message>
    <message>
        <source>could not be set aside</source>
        <translation>konnte nicht beiseitegelegt werden</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a built-in preset&apos;s name; choose another</source>
        <translation>&apos;%1&apos; ist der Name einer eingebauten Vorlage; wählen Sie einen anderen</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>greedy</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>Temperatur %1</translation>
    </message>
    <message>
        <source>top-p %1</source>
        <translation>Top-p %1</translation>
    </message>
    <message>
        <source>top-k %1</source>
        <translation>Top-k %1</translation>
    </message>
    <message>
        <source>seed %1</source>
        <translation>Seed %1</translation>
    </message>
    <message>
        <source>random seed</source>
        <translation>zufälliger Seed</translation>
    </message>
    <message>
        <source>at most %1 tokens</source>
        <translation>höchstens %1 Tokens</translation>
    </message>
    <message>
        <source>thinking on</source>
        <translation>Nachdenken an</translation>
    </message>
    <message>
        <source>thinking off</source>
        <translation>Nachdenken aus</translation>
    </message>
    <message>
        <source>System prompt: %1</source>
        <translation>Systemprompt: %1</translation>
    </message>
    <message>
        <source>The preset &apos;%1&apos; no longer exists: this chat&apos;s answers use the sampling and system prompt of File ▸ Settings until another preset is chosen.</source>
        <translation>Die Vorlage &apos;%1&apos; gibt es nicht mehr: Die Antworten dieses Chats nutzen Sampling und Systemprompt aus Datei ▸ Einstellungen, bis eine andere Vorlage gewählt wird.</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Gestern</translation>
    </message>
    <message>
        <source>Cannot save %1: the folder could not be made. Free some disk space or check the folder&apos;s permissions.</source>
        <translation>%1 kann nicht gespeichert werden: Der Ordner konnte nicht angelegt werden. Schaffen Sie Platz auf dem Laufwerk oder prüfen Sie die Berechtigungen des Ordners.</translation>
    </message>
    <message>
        <source>Cannot read %1: it is not a regular file</source>
        <translation>%1 kann nicht gelesen werden: Es ist keine reguläre Datei</translation>
    </message>
    <message>
        <source>Cannot read %1: it does not exist</source>
        <translation>%1 kann nicht gelesen werden: Es existiert nicht</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>This image becomes about %1 image tokens in detail mode (%2×%3 pixels).</source>
        <translation>Dieses Bild wird im Detailmodus zu etwa %1 Bild-Tokens (%2×%3 Pixel).</translation>
    </message>
    <message>
        <source> Encoding and reading them take about %1 s on this machine.</source>
        <translation> Sie zu kodieren und zu lesen dauert auf diesem Rechner etwa %1 s.</translation>
    </message>
    <message>
        <source> That can take minutes on a CPU (no image has been timed yet here).</source>
        <translation> Das kann auf einer CPU Minuten dauern (hier wurde noch kein Bild gemessen).</translation>
    </message>
    <message>
        <source> Fast mode uses 49 tokens.</source>
        <translation> Der Schnellmodus nutzt 49 Tokens.</translation>
    </message>
    <message>
        <source>The image %1 is no longer there.</source>
        <translation>Das Bild %1 ist nicht mehr da.</translation>
    </message>
    <message>
        <source>%1 exists but cannot be shown: %2</source>
        <translation>%1 existiert, kann aber nicht gezeigt werden: %2</translation>
    </message>
    <message>
        <source>Demo model (shapes world)</source>
        <translation>Demomodell (Formenwelt)</translation>
    </message>
    <message>
        <source>%1 was not downloaded by Glance; it is not deleted (remove it yourself if you mean to)</source>
        <translation>%1 wurde nicht von Glance heruntergeladen; es wird nicht gelöscht (entfernen Sie es selbst, wenn Sie das möchten)</translation>
    </message>
    <message>
        <source>Could not delete all of %1: %2 remain</source>
        <translation>%1 konnte nicht ganz gelöscht werden: %2 bleiben</translation>
    </message>
    <message>
        <source>Could not delete the weight caches %1</source>
        <translation>Die Gewichts-Caches %1 konnten nicht gelöscht werden</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <source>%1 KB</source>
        <translation>%1 KB</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 Bytes</translation>
    </message>
    <message>
        <source> (bundled demo: a tiny model trained on coloured shapes)</source>
        <translation> (mitgeliefertes Demo: ein winziges Modell, trainiert auf farbigen Formen)</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>Gewichte</translation>
    </message>
    <message>
        <source>Data types</source>
        <translation>Datentypen</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>Tokenizer</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 Tokens</translation>
    </message>
    <message>
        <source>Weight precision</source>
        <translation>Gewichtsgenauigkeit</translation>
    </message>
    <message>
        <source>%1 (auto: %2)</source>
        <translation>%1 (auto: %2)</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Why this backend</source>
        <translation>Warum dieses Backend</translation>
    </message>
    <message>
        <source>(chosen explicitly)</source>
        <translation>(ausdrücklich gewählt)</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <source>CPU kernels</source>
        <translation>CPU-Kernel</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>built in</source>
        <translation>eingebaut</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>heruntergeladen</translation>
    </message>
    <message>
        <source>opened</source>
        <translation>geöffnet</translation>
    </message>
    <message>
        <source>a preset called &apos;%1&apos; exists already; choose another name</source>
        <translation>eine Vorlage namens &apos;%1&apos; gibt es schon; wählen Sie einen anderen Namen</translation>
    </message>
    <message>
        <source>%1 copy</source>
        <translation>%1 Kopie</translation>
    </message>
    <message>
        <source>%1 copy %2</source>
        <translation>%1 Kopie %2</translation>
    </message>
    <message>
        <source>not JSON (%1 at byte %2)</source>
        <translation>kein JSON (%1 bei Byte %2)</translation>
    </message>
    <message>
        <source>not a Glance settings file (no &quot;glance_settings&quot;: 1 with &quot;values&quot;)</source>
        <translation>keine Glance-Einstellungsdatei (kein &quot;glance_settings&quot;: 1 mit &quot;values&quot;)</translation>
    </message>
    <message>
        <source>value of &apos;%1&apos; is not base64</source>
        <translation>Wert von &apos;%1&apos; ist kein Base64</translation>
    </message>
    <message>
        <source>value of &apos;%1&apos; is not a string, number, bool or {&quot;bytes&quot;: ...}</source>
        <translation>Wert von &apos;%1&apos; ist weder String, Zahl, Bool noch {&quot;bytes&quot;: ...}</translation>
    </message>
    <message>
        <source>%1 is not a regular file (a FIFO, device or folder where Glance keeps its settings); remove it and start Glance again</source>
        <translation>%1 ist keine reguläre Datei (ein FIFO, Gerät oder Ordner, wo Glance seine Einstellungen ablegt); entfernen Sie es und starten Sie Glance erneut</translation>
    </message>
    <message>
        <source>Message box</source>
        <translation>Eingabefeld</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>Aufmerksamkeit</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>Enter</source>
        <translation>Enter</translation>
    </message>
    <message>
        <source>New line</source>
        <translation>Neue Zeile</translation>
    </message>
    <message>
        <source>Shift+Enter</source>
        <translation>Umschalt+Enter</translation>
    </message>
    <message>
        <source>Cancel editing</source>
        <translation>Bearbeiten abbrechen</translation>
    </message>
    <message>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
    <message>
        <source>Attach the image on the clipboard</source>
        <translation>Das Bild aus der Zwischenablage anhängen</translation>
    </message>
    <message>
        <source>Previous / next word</source>
        <translation>Vorheriges / nächstes Wort</translation>
    </message>
    <message>
        <source>Left / Right</source>
        <translation>Links / Rechts</translation>
    </message>
    <message>
        <source>Zoom the heatmap</source>
        <translation>Heatmap zoomen</translation>
    </message>
    <message>
        <source>Wheel, + / −, 0 resets</source>
        <translation>Mausrad, + / −, 0 setzt zurück</translation>
    </message>
    <message>
        <source>Everywhere</source>
        <translation>Überall</translation>
    </message>
    <message>
        <source>Next / previous control</source>
        <translation>Nächstes / vorheriges Bedienelement</translation>
    </message>
    <message>
        <source>Tab / Shift+Tab</source>
        <translation>Tab / Umschalt+Tab</translation>
    </message>
    <message>
        <source>%1 (and %2 more: see the terminal)</source>
        <translation>%1 (und %2 weitere: siehe Terminal)</translation>
    </message>
</context>
<context>
    <name>SettingsRegistry</name>
    <message>
        <source>Model</source>
        <extracomment>A tab of the Settings dialog</extracomment>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Model folder</source>
        <extracomment>Settings dialog: the label of the setting &apos;model_dir&apos;</extracomment>
        <translation>Modellordner</translation>
    </message>
    <message>
        <source>Folder of a Hugging Face Qwen3.5 checkpoint (config.json, model.safetensors, tokenizer.json, ...). Empty = the bundled demo model.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;model_dir&apos;</extracomment>
        <translation>Ordner eines Hugging-Face-Checkpoints von Qwen3.5 (config.json, model.safetensors, tokenizer.json, ...). Leer = das mitgelieferte Demomodell.</translation>
    </message>
    <message>
        <source>Backend</source>
        <extracomment>Settings dialog: the label of the setting &apos;backend&apos;</extracomment>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Where the projections run. auto picks the NPU when it is usable and says why not otherwise; npu-emu runs the NPU code path on the CPU for testing.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;backend&apos;</extracomment>
        <translation>Wo die Projektionen laufen. auto wählt die NPU, wenn sie nutzbar ist, und sagt sonst, warum nicht; npu-emu führt den NPU-Codepfad zum Testen auf der CPU aus.</translation>
    </message>
    <message>
        <source>Weight precision</source>
        <extracomment>Settings dialog: the label of the setting &apos;precision&apos;</extracomment>
        <translation>Gewichtsgenauigkeit</translation>
    </message>
    <message>
        <source>How weights are held in memory: auto (the checkpoint&apos;s own int4 when it ships quantized, else q8), f32 (largest, reference), bf16 (as shipped), q8 or q4 (quantized blocks of 32; smaller and faster, slightly less accurate).</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;precision&apos;</extracomment>
        <translation>Wie Gewichte im Speicher gehalten werden: auto (das eigene int4 des Checkpoints, wenn er quantisiert ausgeliefert wird, sonst q8), f32 (am größten, Referenz), bf16 (wie ausgeliefert), q8 oder q4 (quantisierte Blöcke zu 32; kleiner und schneller, etwas ungenauer).</translation>
    </message>
    <message>
        <source>Threads</source>
        <extracomment>Settings dialog: the label of the setting &apos;threads&apos;</extracomment>
        <translation>Threads</translation>
    </message>
    <message>
        <source>Worker threads for the CPU kernels. 0 = one per core.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;threads&apos;</extracomment>
        <translation>Arbeits-Threads für die CPU-Kernel. 0 = einer pro Kern.</translation>
    </message>
    <message>
        <source>Context length</source>
        <extracomment>Settings dialog: the label of the setting &apos;context_length&apos;</extracomment>
        <translation>Kontextlänge</translation>
    </message>
    <message>
        <source>The most tokens one chat may hold: its messages, images and answers. Longer chats remember more and use more memory. A value above the model&apos;s own limit (max_position_embeddings) is lowered to it. Applies from the next message. A full chat says so; start a new chat to go on.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;context_length&apos;</extracomment>
        <translation>Die meisten Tokens, die ein Chat fassen darf: seine Nachrichten, Bilder und Antworten. Längere Chats erinnern sich an mehr und brauchen mehr Speicher. Ein Wert über der eigenen Grenze des Modells (max_position_embeddings) wird auf diese gesenkt. Gilt ab der nächsten Nachricht. Ein voller Chat sagt es; beginnen Sie dann einen neuen Chat.</translation>
    </message>
    <message>
        <source>Generation</source>
        <extracomment>A tab of the Settings dialog</extracomment>
        <translation>Generierung</translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <extracomment>Settings dialog: the label of the setting &apos;max_new_tokens&apos;</extracomment>
        <translation>Max. neue Tokens</translation>
    </message>
    <message>
        <source>Longest answer, in tokens, before generation stops.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;max_new_tokens&apos;</extracomment>
        <translation>Längste Antwort in Tokens, bevor die Generierung stoppt.</translation>
    </message>
    <message>
        <source>Stop sequences</source>
        <extracomment>Settings dialog: the label of the setting &apos;stop_sequences&apos;</extracomment>
        <translation>Stoppsequenzen</translation>
    </message>
    <message>
        <source>The answer ends before the first of these it writes; the stop sequence is not shown or saved. One a line; \n is a line break, \t a tab, \\ a backslash. A chat preset&apos;s own stop sequences replace these.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;stop_sequences&apos;</extracomment>
        <translation>Die Antwort endet vor der ersten davon, die sie schreibt; die Stoppsequenz wird nicht gezeigt oder gespeichert. Eine pro Zeile; \n ist ein Zeilenumbruch, \t ein Tabulator, \\ ein Backslash. Die eigenen Stoppsequenzen einer Chat-Vorlage ersetzen diese.</translation>
    </message>
    <message>
        <source>Thinking</source>
        <extracomment>Settings dialog: the label of the setting &apos;thinking&apos;</extracomment>
        <translation>Nachdenken</translation>
    </message>
    <message>
        <source>Whether the model reasons in a &lt;think&gt; block before answering. default = what the checkpoint&apos;s chat template does.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;thinking&apos;</extracomment>
        <translation>Ob das Modell vor dem Antworten in einem &lt;think&gt;-Block überlegt. default = was die Chat-Vorlage des Checkpoints tut.</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <extracomment>Settings dialog: the label of the setting &apos;speculative&apos;</extracomment>
        <translation>Spekulatives Dekodieren</translation>
    </message>
    <message>
        <source>mtp = draft the next token with the checkpoint&apos;s own multi-token-prediction layer and check it in the same pass over the weights as the current one. Greedy answers are the same as with off, sampled ones follow the same distribution; fewer passes over the weights when drafts are accepted. Needs a checkpoint with an MTP layer. auto = mtp only where `glance-cli bench-speculative --model DIR` measured it faster on this machine for this model, precision and thread count; off otherwise.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;speculative&apos;</extracomment>
        <translation>mtp = das nächste Token mit der eigenen Multi-Token-Prediction-Schicht des Checkpoints entwerfen und es im selben Durchlauf über die Gewichte prüfen wie das aktuelle. Greedy-Antworten sind dieselben wie mit off, gesampelte folgen derselben Verteilung; weniger Durchläufe über die Gewichte, wenn Entwürfe angenommen werden. Braucht einen Checkpoint mit MTP-Schicht. auto = mtp nur, wo `glance-cli bench-speculative --model DIR` es auf diesem Rechner für dieses Modell, diese Genauigkeit und Threadzahl schneller gemessen hat; sonst off.</translation>
    </message>
    <message>
        <source>Capture attention</source>
        <extracomment>Settings dialog: the label of the setting &apos;capture_attention&apos;</extracomment>
        <translation>Aufmerksamkeit erfassen</translation>
    </message>
    <message>
        <source>Record where each generated token looks in the image (for the attention panel). Costs a little speed.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;capture_attention&apos;</extracomment>
        <translation>Aufzeichnen, wohin jedes generierte Token im Bild schaut (für das Aufmerksamkeitsfenster). Kostet etwas Geschwindigkeit.</translation>
    </message>
    <message>
        <source>Sampling</source>
        <extracomment>A tab of the Settings dialog</extracomment>
        <translation>Sampling</translation>
    </message>
    <message>
        <source>model = what the model&apos;s generation_config.json asks for (as Hugging Face&apos;s generate does); greedy = always the most likely token (deterministic); custom = sample with the settings below.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;sampling&apos;</extracomment>
        <translation>model = was die generation_config.json des Modells verlangt (wie generate von Hugging Face); greedy = immer das wahrscheinlichste Token (deterministisch); custom = mit den Einstellungen unten sampeln.</translation>
    </message>
    <message>
        <source>Temperature</source>
        <extracomment>Settings dialog: the label of the setting &apos;temperature&apos;</extracomment>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>Sampling temperature: lower is more focused, higher more varied.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;temperature&apos;</extracomment>
        <translation>Sampling-Temperatur: niedriger ist fokussierter, höher abwechslungsreicher.</translation>
    </message>
    <message>
        <source>Top-k</source>
        <extracomment>Settings dialog: the label of the setting &apos;top_k&apos;</extracomment>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Sample only among the k most likely tokens. 0 = off.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;top_k&apos;</extracomment>
        <translation>Nur unter den k wahrscheinlichsten Tokens sampeln. 0 = aus.</translation>
    </message>
    <message>
        <source>Top-p</source>
        <extracomment>Settings dialog: the label of the setting &apos;top_p&apos;</extracomment>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Sample from the smallest set of tokens whose probabilities add up to p. 1 = off.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;top_p&apos;</extracomment>
        <translation>Aus der kleinsten Menge von Tokens sampeln, deren Wahrscheinlichkeiten sich zu p addieren. 1 = aus.</translation>
    </message>
    <message>
        <source>Min-p</source>
        <extracomment>Settings dialog: the label of the setting &apos;min_p&apos;</extracomment>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Drop tokens less likely than min_p times the most likely one. 0 = off.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;min_p&apos;</extracomment>
        <translation>Tokens verwerfen, die weniger wahrscheinlich sind als min_p mal das wahrscheinlichste. 0 = aus.</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <extracomment>Settings dialog: the label of the setting &apos;repetition_penalty&apos;</extracomment>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <source>Divide the scores of tokens already in the context (&gt;1 discourages repeats). 1 = off.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;repetition_penalty&apos;</extracomment>
        <translation>Die Scores von Tokens, die schon im Kontext sind, teilen (&gt;1 bremst Wiederholungen). 1 = aus.</translation>
    </message>
    <message>
        <source>Presence penalty</source>
        <extracomment>Settings dialog: the label of the setting &apos;presence_penalty&apos;</extracomment>
        <translation>Präsenzstrafe</translation>
    </message>
    <message>
        <source>Subtract from the scores of tokens already generated this turn. 0 = off.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;presence_penalty&apos;</extracomment>
        <translation>Von den Scores der in dieser Runde schon generierten Tokens abziehen. 0 = aus.</translation>
    </message>
    <message>
        <source>Seed</source>
        <extracomment>Settings dialog: the label of the setting &apos;seed&apos;</extracomment>
        <translation>Seed</translation>
    </message>
    <message>
        <source>Random seed for sampling; the same seed and settings give the same answer. -1 = a new seed every turn (so Regenerate gives a different answer).</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;seed&apos;</extracomment>
        <translation>Zufalls-Seed für das Sampling; derselbe Seed mit denselben Einstellungen gibt dieselbe Antwort. -1 = jede Runde ein neuer Seed (so gibt Neu generieren eine andere Antwort).</translation>
    </message>
    <message>
        <source>Chat</source>
        <extracomment>A tab of the Settings dialog</extracomment>
        <translation>Chat</translation>
    </message>
    <message>
        <source>System prompt</source>
        <extracomment>Settings dialog: the label of the setting &apos;system_prompt&apos;</extracomment>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>Instructions placed before the conversation. Takes effect in a new chat.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;system_prompt&apos;</extracomment>
        <translation>Anweisungen vor der Unterhaltung. Wirkt in einem neuen Chat.</translation>
    </message>
    <message>
        <source>Image</source>
        <extracomment>A tab of the Settings dialog</extracomment>
        <translation>Bild</translation>
    </message>
    <message>
        <source>Image mode</source>
        <extracomment>Settings dialog: the label of the setting &apos;image_mode&apos;</extracomment>
        <translation>Bildmodus</translation>
    </message>
    <message>
        <source>fast resizes images to 224x224 (49 image tokens); detail keeps more pixels (more tokens, slower, finer attention maps).</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;image_mode&apos;</extracomment>
        <translation>fast skaliert Bilder auf 224x224 (49 Bild-Tokens); detail behält mehr Pixel (mehr Tokens, langsamer, feinere Aufmerksamkeitskarten).</translation>
    </message>
    <message>
        <source>Caption on drop</source>
        <extracomment>Settings dialog: the label of the setting &apos;caption_on_drop&apos;</extracomment>
        <translation>Beim Ablegen beschriften</translation>
    </message>
    <message>
        <source>Describe an image as soon as it is dropped or pasted.</source>
        <extracomment>Settings dialog: the tooltip of the setting &apos;caption_on_drop&apos;</extracomment>
        <translation>Ein Bild beschreiben, sobald es abgelegt oder eingefügt wird.</translation>
    </message>
</context>
<context>
    <name>Stats</name>
    <message>
        <source>%1%2%3 %4 %5%6%7 = %8 tokens</source>
        <translation>%1%2%3 %4 %5%6%7 = %8 Tokens</translation>
    </message>
    <message>
        <source>MTP %1 of drafts accepted, %2 tok/pass</source>
        <translation>MTP %1 der Entwürfe angenommen, %2 Tok/Durchlauf</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>Tok/s</translation>
    </message>
    <message>
        <source>prompt %1 tok</source>
        <translation>Prompt %1 Tok</translation>
    </message>
    <message>
        <source>TTFT %1</source>
        <translation>TTFT %1</translation>
    </message>
    <message>
        <source>prefill %1</source>
        <translation>Prefill %1</translation>
    </message>
    <message>
        <source>decode %1</source>
        <translation>Dekodieren %1</translation>
    </message>
    <message>
        <source>%1 tok</source>
        <translation>%1 Tok</translation>
    </message>
    <message>
        <source>sampled, seed %1</source>
        <translation>gesampelt, Seed %1</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>greedy</translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n Thread</numerusform>
            <numerusform>%n Threads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::AttachmentStrip</name>
    <message>
        <source>Attached images</source>
        <translation>Angehängte Bilder</translation>
    </message>
    <message>
        <source>Encoding…</source>
        <translation>Wird kodiert…</translation>
    </message>
    <message>
        <source>Image %1: %2</source>
        <translation>Bild %1: %2</translation>
    </message>
    <message>
        <source>Remove %1 from the message</source>
        <translation>%1 aus der Nachricht entfernen</translation>
    </message>
    <message>
        <source>Remove image %1</source>
        <translation>Bild %1 entfernen</translation>
    </message>
</context>
<context>
    <name>glance::ui::AttentionPanel</name>
    <message>
        <source>Attach an image and ask about it to see where the model looks.</source>
        <translation>Hängen Sie ein Bild an und fragen Sie danach, um zu sehen, wohin das Modell schaut.</translation>
    </message>
    <message>
        <source>Whole answer</source>
        <translation>Ganze Antwort</translation>
    </message>
    <message>
        <source>Where the whole answer looked: the mean over all its tokens (shift-click a word for a span from the selected one; ctrl-click a word to see it beside the selected one, on the same scale)</source>
        <translation>Wohin die ganze Antwort geschaut hat: der Mittelwert über alle ihre Tokens (Umschalt-Klick auf ein Wort wählt einen Bereich ab dem gewählten; Strg-Klick zeigt ein Wort neben dem gewählten, auf derselben Skala)</translation>
    </message>
    <message>
        <source>Attention heatmap</source>
        <translation>Aufmerksamkeits-Heatmap</translation>
    </message>
    <message>
        <source>Second word&apos;s attention heatmap</source>
        <translation>Aufmerksamkeits-Heatmap des zweiten Worts</translation>
    </message>
    <message>
        <source>What attention maps do and do not tell you</source>
        <translation>Was Aufmerksamkeitskarten aussagen und was nicht</translation>
    </message>
    <message>
        <source>What attention maps show</source>
        <translation>Was Aufmerksamkeitskarten zeigen</translation>
    </message>
    <message>
        <source>Inferno</source>
        <translation>Inferno</translation>
    </message>
    <message>
        <source>Viridis</source>
        <translation>Viridis</translation>
    </message>
    <message>
        <source>Cividis (colour-blind safe)</source>
        <translation>Cividis (farbenblind-sicher)</translation>
    </message>
    <message>
        <source>Magma</source>
        <translation>Magma</translation>
    </message>
    <message>
        <source>Greys</source>
        <translation>Graustufen</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>Kopf</translation>
    </message>
    <message>
        <source>Colours</source>
        <translation>Farben</translation>
    </message>
    <message>
        <source>Heatmap opacity</source>
        <translation>Deckkraft der Heatmap</translation>
    </message>
    <message>
        <source>Hide sinks</source>
        <translation>Senken ausblenden</translation>
    </message>
    <message>
        <source>Grey out cells with more than 5× the median weight (attention sinks) and spread the colours over the rest.</source>
        <translation>Zellen mit mehr als dem 5-Fachen des Medians (Aufmerksamkeitssenken) grau darstellen und die Farben über den Rest verteilen.</translation>
    </message>
    <message>
        <source>View</source>
        <translation>Ansicht</translation>
    </message>
    <message>
        <source>What the map shows</source>
        <translation>Was die Karte zeigt</translation>
    </message>
    <message>
        <source>Token grid</source>
        <translation>Token-Raster</translation>
    </message>
    <message>
        <source>2×2 patches of each token</source>
        <translation>2×2 Patches je Token</translation>
    </message>
    <message>
        <source>The vision tower cuts the image into 16-pixel patches and merges each 2×2 of them into one token</source>
        <translation>Der Vision-Tower zerlegt das Bild in 16-Pixel-Patches und fasst je 2×2 davon zu einem Token zusammen</translation>
    </message>
    <message>
        <source>Original picture</source>
        <translation>Originalbild</translation>
    </message>
    <message>
        <source>The whole picture as it was opened: the part the model saw (after resizing and cropping) carries the map, the rest is dimmed</source>
        <translation>Das ganze Bild, wie es geöffnet wurde: Der Teil, den das Modell sah (nach Skalieren und Zuschneiden), trägt die Karte, der Rest ist abgedunkelt</translation>
    </message>
    <message>
        <source>Scale: each map&apos;s lowest to highest</source>
        <translation>Skala: Minimum bis Maximum jeder Karte</translation>
    </message>
    <message>
        <source>Scale: clip to the 2nd–98th percentile</source>
        <translation>Skala: auf das 2.–98. Perzentil begrenzen</translation>
    </message>
    <message>
        <source>Scale: logarithmic (small weights visible)</source>
        <translation>Skala: logarithmisch (kleine Gewichte sichtbar)</translation>
    </message>
    <message>
        <source>Same scale for every word</source>
        <translation>Gleiche Skala für jedes Wort</translation>
    </message>
    <message>
        <source>One colour range for the whole answer, so words compare by brightness; otherwise each word&apos;s map spans every colour</source>
        <translation>Ein Farbbereich für die ganze Antwort, sodass sich Wörter über die Helligkeit vergleichen lassen; sonst nutzt die Karte jedes Worts alle Farben</translation>
    </message>
    <message>
        <source>Reverse lookup: content words only</source>
        <translation>Rückwärtssuche: nur Inhaltswörter</translation>
    </message>
    <message>
        <source>Reverse lookup: on the layers and head shown</source>
        <translation>Rückwärtssuche: auf den gezeigten Schichten und Köpfen</translation>
    </message>
    <message>
        <source>Rank the words by the map chosen above; otherwise by the last full-attention layer, whose maps name what is at a cell most often</source>
        <translation>Die Wörter nach der oben gewählten Karte reihen; sonst nach der letzten Full-Attention-Schicht, deren Karten am häufigsten benennen, was in einer Zelle ist</translation>
    </message>
    <message>
        <source>Opacity</source>
        <translation>Deckkraft</translation>
    </message>
    <message>
        <source>Export &amp;PNG…</source>
        <translation>&amp;PNG-Export…</translation>
    </message>
    <message>
        <source>Export &amp;maps…</source>
        <translation>&amp;Karten-Export…</translation>
    </message>
    <message>
        <source>The raw per-token maps as JSON or CSV, with the model, precision, layers, heads and grid</source>
        <translation>Die rohen Karten je Token als JSON oder CSV, mit Modell, Genauigkeit, Schichten, Köpfen und Raster</translation>
    </message>
    <message>
        <source>%1, %2 weights</source>
        <translation>%1, Gewichte %2</translation>
    </message>
    <message>
        <source>attention weight</source>
        <translation>Aufmerksamkeitsgewicht</translation>
    </message>
    <message>
        <source>Hover the heatmap for a cell&apos;s weight; wheel zooms; click a cell for the words that looked there.</source>
        <translation>Über die Heatmap fahren zeigt das Gewicht einer Zelle; Mausrad zoomt; Klick auf eine Zelle zeigt die Wörter, die dorthin geschaut haben.</translation>
    </message>
    <message>
        <source>Hover a cell for its weight; wheel zooms; click for its words.</source>
        <translation>Über eine Zelle fahren: Gewicht; Mausrad: Zoom; Klick: ihre Wörter.</translation>
    </message>
    <message>
        <source>Hover: weight · wheel: zoom · click: words</source>
        <translation>Zeigen: Gewicht · Rad: Zoom · Klick: Wörter</translation>
    </message>
    <message>
        <source>Hover a cell for its weight</source>
        <translation>Zeigen: Gewicht</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;What the map shows.&lt;/b&gt; For the chosen word, how much weight the model&apos;s full-attention layers gave each image token while writing it: the softmax attention of the word&apos;s tokens, averaged over the chosen layers and heads (or one of them). Each cell is one token of the image as the model saw it — 2×2 patches of 16 pixels merged, 32×32 pixels of the resized image.&lt;/p&gt;&lt;p&gt;&lt;b&gt;What it does not tell you.&lt;/b&gt; Attention says where information was read from, not why a word was chosen: a bright cell is not proof that it caused the word (Jain and Wallace, “Attention is not Explanation”, 2019). Only one layer in four is full attention; the Gated DeltaNet layers between them have no softmax, and their &lt;i&gt;hidden attention&lt;/i&gt; (the weight each earlier token&apos;s value gets in the layer&apos;s output, Ali et al. 2024) is signed and does not sum to one. By the time a word is written, earlier layers have already moved information between image tokens, so a cell can stand for its neighbours. Some heads park their attention on a few tokens that carry little content (attention sinks, Xiao et al. 2023): &lt;i&gt;Hide sinks&lt;/i&gt; leaves them out of the colour scale. The colours are scaled to each map (the legend gives its range), so compare words by where their maps peak, not by brightness.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Layer × head chart.&lt;/b&gt; One cell per layer (columns; full attention in bold) and head (rows), coloured by the share of the word&apos;s attention on this image&apos;s tokens; its tooltip gives the shares on the image, on the text (every other token) and on the sink — here the sequence&apos;s first token, &lt;tt&gt;&amp;lt;|im_start|&amp;gt;&lt;/tt&gt;, where many heads rest. For a DeltaNet layer they are fractions of the signed sum of its weights. Click a cell to see that layer and head.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Rollout and two words.&lt;/b&gt; &lt;i&gt;Rollout (every layer)&lt;/i&gt; in the layer list follows attention through all layers, the residual counted (Abnar and Zuidema 2020; the DeltaNet layers enter through their hidden attention); it runs the chat again, so it takes a moment and is refused for very long chats. Ctrl-click a second word to see its map beside the selected one, on the same scale.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Reverse lookup.&lt;/b&gt; Click a cell: the answer&apos;s words are ranked by the weight their maps give it, and the first five are tinted among the words above. Words such as “on” or “the” often rest on the whole image and come first, so by default the ranking leaves them out and uses the last full-attention layer: on the demo model that puts the object&apos;s name or colour first for 87 % of objects, against 6.5 % for every word over all layers. &lt;i&gt;View ▸ Reverse lookup: content words only&lt;/i&gt; and &lt;i&gt;on the layers and head shown&lt;/i&gt; change that.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Was die Karte zeigt.&lt;/b&gt; Für das gewählte Wort, wie viel Gewicht die Full-Attention-Schichten des Modells jedem Bild-Token gaben, während es geschrieben wurde: die Softmax-Aufmerksamkeit der Tokens des Worts, gemittelt über die gewählten Schichten und Köpfe (oder einen davon). Jede Zelle ist ein Token des Bilds, wie das Modell es sah — 2×2 Patches zu 16 Pixeln zusammengefasst, 32×32 Pixel des skalierten Bilds.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Was sie nicht sagt.&lt;/b&gt; Aufmerksamkeit sagt, woher Information gelesen wurde, nicht, warum ein Wort gewählt wurde: Eine helle Zelle beweist nicht, dass sie das Wort verursacht hat (Jain und Wallace, „Attention is not Explanation“, 2019). Nur jede vierte Schicht ist Full Attention; die Gated-DeltaNet-Schichten dazwischen haben kein Softmax, und ihre &lt;i&gt;verborgene Aufmerksamkeit&lt;/i&gt; (das Gewicht, das der Wert jedes früheren Tokens in der Ausgabe der Schicht erhält, Ali et al. 2024) hat ein Vorzeichen und summiert sich nicht zu eins. Wenn ein Wort geschrieben wird, haben frühere Schichten bereits Information zwischen Bild-Tokens verschoben, sodass eine Zelle für ihre Nachbarn stehen kann. Manche Köpfe parken ihre Aufmerksamkeit auf wenigen Tokens mit wenig Inhalt (Aufmerksamkeitssenken, Xiao et al. 2023): &lt;i&gt;Senken ausblenden&lt;/i&gt; nimmt sie aus der Farbskala. Die Farben sind auf jede Karte skaliert (die Legende nennt ihren Bereich); vergleichen Sie Wörter also danach, wo ihre Karten ihr Maximum haben, nicht nach der Helligkeit.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Diagramm Schicht × Kopf.&lt;/b&gt; Eine Zelle je Schicht (Spalten; Full Attention fett) und Kopf (Zeilen), gefärbt nach dem Anteil der Aufmerksamkeit des Worts auf den Tokens dieses Bilds; ihr Tooltip nennt die Anteile auf dem Bild, auf dem Text (jedem anderen Token) und auf der Senke — hier das erste Token der Sequenz, &lt;tt&gt;&amp;lt;|im_start|&amp;gt;&lt;/tt&gt;, auf dem viele Köpfe ruhen. Bei einer DeltaNet-Schicht sind es Anteile an der vorzeichenbehafteten Summe ihrer Gewichte. Klicken Sie auf eine Zelle, um diese Schicht und diesen Kopf zu sehen.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Rollout und zwei Wörter.&lt;/b&gt; &lt;i&gt;Rollout (jede Schicht)&lt;/i&gt; in der Schichtliste verfolgt die Aufmerksamkeit durch alle Schichten, das Residuum mitgezählt (Abnar und Zuidema 2020; die DeltaNet-Schichten gehen über ihre verborgene Aufmerksamkeit ein); dafür läuft der Chat erneut, es dauert also einen Moment und wird bei sehr langen Chats abgelehnt. Strg-Klick auf ein zweites Wort zeigt dessen Karte neben der gewählten, auf derselben Skala.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Rückwärtssuche.&lt;/b&gt; Klicken Sie auf eine Zelle: Die Wörter der Antwort werden nach dem Gewicht gereiht, das ihre Karten ihr geben, und die ersten fünf werden oben zwischen den Wörtern eingefärbt. Wörter wie „auf“ oder „der“ ruhen oft auf dem ganzen Bild und kämen zuerst; daher lässt die Reihung sie standardmäßig weg und nutzt die letzte Full-Attention-Schicht: Beim Demomodell kommt so bei 87 % der Objekte der Name oder die Farbe des Objekts zuerst, gegenüber 6,5 % für jedes Wort über alle Schichten. &lt;i&gt;Ansicht ▸ Rückwärtssuche: nur Inhaltswörter&lt;/i&gt; und &lt;i&gt;auf den gezeigten Schichten und Köpfen&lt;/i&gt; ändern das.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>“%1” %2</source>
        <translation>„%1“ %2</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>Schicht %1</translation>
    </message>
    <message>
        <source>the map shown</source>
        <translation>die gezeigte Karte</translation>
    </message>
    <message>
        <source>content words</source>
        <translation>Inhaltswörter</translation>
    </message>
    <message>
        <source>every word</source>
        <translation>jedes Wort</translation>
    </message>
    <message>
        <source>Row %1, col %2 — the words that looked there most (%3, %4): %5. Click it again to clear.</source>
        <translation>Zeile %1, Spalte %2 — die Wörter, die am meisten dorthin geschaut haben (%3, %4): %5. Erneut klicken zum Zurücksetzen.</translation>
    </message>
    <message>
        <source>Looked at the chosen cell: rank %1</source>
        <translation>Auf die gewählte Zelle geschaut: Rang %1</translation>
    </message>
    <message>
        <source>Tokens %1–%2</source>
        <translation>Tokens %1–%2</translation>
    </message>
    <message>
        <source>All layers</source>
        <translation>Alle Schichten</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>Schicht %1</translation>
    </message>
    <message>
        <source>All DeltaNet layers (hidden attention)</source>
        <translation>Alle DeltaNet-Schichten (verborgene Aufmerksamkeit)</translation>
    </message>
    <message>
        <source>Layer %1 · DeltaNet</source>
        <translation>Schicht %1 · DeltaNet</translation>
    </message>
    <message>
        <source>Rollout (every layer)</source>
        <translation>Rollout (jede Schicht)</translation>
    </message>
    <message>
        <source>Attention rollout (Abnar &amp; Zuidema 2020): attention followed through every layer, the residual counted; computed on demand by running the chat again</source>
        <translation>Attention-Rollout (Abnar &amp; Zuidema 2020): die Aufmerksamkeit durch jede Schicht verfolgt, das Residuum mitgezählt; wird bei Bedarf berechnet, indem der Chat erneut läuft</translation>
    </message>
    <message>
        <source>All heads</source>
        <translation>Alle Köpfe</translation>
    </message>
    <message>
        <source>All heads, max</source>
        <translation>Alle Köpfe, Maximum</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>Kopf %1</translation>
    </message>
    <message>
        <source>Generating… token %1 “%2”</source>
        <translation>Generiert… Token %1 „%2“</translation>
    </message>
    <message>
        <source>Rollout: running the chat again with every layer’s attention…</source>
        <translation>Rollout: Chat läuft erneut mit der Aufmerksamkeit jeder Schicht…</translation>
    </message>
    <message>
        <source>Rollout: %1</source>
        <translation>Rollout: %1</translation>
    </message>
    <message>
        <source>“%1” (words %2–%3)</source>
        <translation>„%1“ (Wörter %2–%3)</translation>
    </message>
    <message>
        <source>%1 beside “%2” (one scale)</source>
        <translation>%1 neben „%2“ (eine Skala)</translation>
    </message>
    <message>
        <source>%1 · %2×%3 grid · %4 · %5</source>
        <translation>%1 · %2×%3-Raster · %4 · %5</translation>
    </message>
    <message>
        <source>Ask about the image to see where the model looks.</source>
        <translation>Fragen Sie nach dem Bild, um zu sehen, wohin das Modell schaut.</translation>
    </message>
    <message>
        <source>Export heatmap</source>
        <translation>Heatmap exportieren</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG-Bilder (*.png)</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>%1 konnte nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Export attention maps</source>
        <translation>Aufmerksamkeitskarten exportieren</translation>
    </message>
    <message>
        <source>JSON files (*.json);;CSV files, one row per cell (*.csv)</source>
        <translation>JSON-Dateien (*.json);;CSV-Dateien, eine Zeile je Zelle (*.csv)</translation>
    </message>
    <message>
        <source>This answer&apos;s layer × head shares were not saved with the chat (saved by an earlier version, or too long to keep them): regenerate the answer to see them.</source>
        <translation>Die Anteile je Schicht × Kopf dieser Antwort wurden nicht mit dem Chat gespeichert (von einer früheren Version gespeichert oder zu lang, um sie aufzubewahren): Antwort neu erzeugen, um sie zu sehen.</translation>
    </message>
    <message>
        <source>Left: the picture only; right: the heat only (also in View)</source>
        <translation>Links: nur das Bild; rechts: nur die Heatmap (auch unter Ansicht)</translation>
    </message>
    <message>
        <source>Heat only (opacity 100 %)</source>
        <translation>Nur die Heatmap (Deckkraft 100 %)</translation>
    </message>
    <message>
        <source>Picture only (opacity 0 %)</source>
        <translation>Nur das Bild (Deckkraft 0 %)</translation>
    </message>
    <message>
        <source>Heat over the picture (opacity 55 %)</source>
        <translation>Heatmap über dem Bild (Deckkraft 55 %)</translation>
    </message>
    <message>
        <source>Attention of “%1”</source>
        <translation>Aufmerksamkeit von „%1“</translation>
    </message>
    <message>
        <source>Row %1, col %2 — no content word looked there more than at the rest of the image. Click it again to clear.</source>
        <translation>Zeile %1, Spalte %2 — kein Inhaltswort hat dorthin mehr geschaut als auf den Rest des Bildes. Erneut klicken zum Zurücksetzen.</translation>
    </message>
    <message>
        <source>Leave out “a”, “the”, “on” and the like when ranking the words that looked at a clicked cell (they rest their attention on the whole image), and words that looked at the rest of the image more than at that cell</source>
        <translation>„ein“, „der“, „auf“ und Ähnliches weglassen, wenn die Wörter gereiht werden, die auf eine angeklickte Zelle geschaut haben (sie verteilen ihre Aufmerksamkeit über das ganze Bild), und Wörter, die auf den Rest des Bildes mehr geschaut haben als auf diese Zelle</translation>
    </message>
</context>
<context>
    <name>glance::ui::CaptionFolderDialog</name>
    <message>
        <source>Caption a folder</source>
        <translation>Ordner beschriften</translation>
    </message>
    <message>
        <source>A folder of images</source>
        <translation>Ein Ordner mit Bildern</translation>
    </message>
    <message>
        <source>captions.jsonl or captions.csv</source>
        <translation>captions.jsonl oder captions.csv</translation>
    </message>
    <message>
        <source>Describe this image.</source>
        <translation>Describe this image.</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Wählen…</translation>
    </message>
    <message>
        <source>Optional: a JSON schema file, for JSON captions</source>
        <translation>Optional: JSON-Schema für JSON-Ausgabe</translation>
    </message>
    <message>
        <source>Each caption becomes a JSON document this schema accepts (constrained decoding), written into the .jsonl as JSON</source>
        <translation>Jede Beschriftung wird ein JSON-Dokument, das dieses Schema akzeptiert (eingeschränkte Dekodierung), als JSON in die .jsonl geschrieben</translation>
    </message>
    <message>
        <source>&amp;Folder:</source>
        <translation>&amp;Ordner:</translation>
    </message>
    <message>
        <source>&amp;Question:</source>
        <translation>&amp;Frage:</translation>
    </message>
    <message>
        <source>JSON s&amp;chema:</source>
        <translation>JSON-S&amp;chema:</translation>
    </message>
    <message>
        <source>Images already in the output file are skipped, so a stopped run continues where it stopped.</source>
        <translation>Bilder, die schon in der Ausgabedatei stehen, werden übersprungen; ein angehaltener Lauf macht also dort weiter, wo er aufhörte.</translation>
    </message>
    <message>
        <source>Captions and skipped files appear here.</source>
        <translation>Beschriftungen und übersprungene Dateien erscheinen hier.</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;toppen</translation>
    </message>
    <message>
        <source>JSON schema</source>
        <translation>JSON-Schema</translation>
    </message>
    <message>
        <source>JSON schemas (*.json);;All files (*)</source>
        <translation>JSON-Schemas (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Folder of images</source>
        <translation>Ordner mit Bildern</translation>
    </message>
    <message>
        <source>Save captions to</source>
        <translation>Beschriftungen speichern in</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl);;CSV (*.csv)</source>
        <translation>JSON Lines (*.jsonl);;CSV (*.csv)</translation>
    </message>
    <message>
        <source>Choose a folder of images first.</source>
        <translation>Wählen Sie zuerst einen Ordner mit Bildern.</translation>
    </message>
    <message>
        <source>Save to a file ending in .jsonl or .csv.</source>
        <translation>In eine Datei speichern, die auf .jsonl oder .csv endet.</translation>
    </message>
    <message>
        <source>JSON schema %1: %2</source>
        <translation>JSON-Schema %1: %2</translation>
    </message>
    <message>
        <source>JSON captions go to a .jsonl file (one JSON object per image).</source>
        <translation>JSON-Beschriftungen kommen in eine .jsonl-Datei (ein JSON-Objekt je Bild).</translation>
    </message>
    <message>
        <source>Reading the folder…</source>
        <translation>Ordner wird gelesen…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird gestoppt…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source> · %1</source>
        <translation> · %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>skipped %1: %2</source>
        <translation>%1 übersprungen: %2</translation>
    </message>
    <message>
        <source>Stopped: %1 captioned, saved in %2. Start again to continue.</source>
        <translation>Gestoppt: %1 beschriftet, gespeichert in %2. Erneut starten, um fortzufahren.</translation>
    </message>
    <message>
        <source>Done: %1 captioned, saved in %2.</source>
        <translation>Fertig: %1 beschriftet, gespeichert in %2.</translation>
    </message>
    <message>
        <source> %1 were already there.</source>
        <translation> %1 waren schon vorhanden.</translation>
    </message>
    <message>
        <source> %1 skipped (see the list).</source>
        <translation> %1 übersprungen (siehe Liste).</translation>
    </message>
    <message>
        <source>Sa&amp;ve to:</source>
        <translation>Speichern &amp;in:</translation>
    </message>
</context>
<context>
    <name>glance::ui::CaptionPresetDialog</name>
    <message>
        <source>New caption preset</source>
        <translation>Neue Beschriftungsvorlage</translation>
    </message>
    <message>
        <source>Edit caption preset</source>
        <translation>Beschriftungsvorlage bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>Short (one sentence)</source>
        <translation>Kurz (ein Satz)</translation>
    </message>
    <message>
        <source>Detailed (a paragraph)</source>
        <translation>Ausführlich (ein Absatz)</translation>
    </message>
    <message>
        <source>Tags (comma-separated)</source>
        <translation>Tags (durch Kommas getrennt)</translation>
    </message>
    <message>
        <source>JSON (a JSON object)</source>
        <translation>JSON (ein JSON-Objekt)</translation>
    </message>
    <message>
        <source>&amp;Style:</source>
        <translation>&amp;Stil:</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> Tokens</translation>
    </message>
    <message>
        <source>&amp;Length at most:</source>
        <translation>&amp;Länge höchstens:</translation>
    </message>
    <message>
        <source>e.g. Refer to the person as {name}. Mention the lighting.</source>
        <translation>z. B. Nenne die Person {name}. Erwähne das Licht.</translation>
    </message>
    <message>
        <source>Added after the style&apos;s question. Each {word} is asked for when captioning.</source>
        <translation>Wird nach der Frage des Stils angefügt. Jedes {wort} wird beim Beschriften abgefragt.</translation>
    </message>
    <message>
        <source>&amp;Instructions:</source>
        <translation>&amp;Anweisungen:</translation>
    </message>
    <message>
        <source>optional JSON schema; empty: any JSON object</source>
        <translation>optionales JSON-Schema; leer: beliebiges JSON-Objekt</translation>
    </message>
    <message>
        <source>JSON s&amp;chema:</source>
        <translation>JSON-S&amp;chema:</translation>
    </message>
    <message>
        <source>0 (greedy: the same caption every time)</source>
        <translation>0 (greedy: jedes Mal dieselbe Beschriftung)</translation>
    </message>
    <message>
        <source>&amp;Temperature:</source>
        <translation>&amp;Temperatur:</translation>
    </message>
    <message>
        <source>Top-&amp;p:</source>
        <translation>Top-&amp;p:</translation>
    </message>
    <message>
        <source>empty: a new seed each image</source>
        <translation>leer: ein neuer Seed je Bild</translation>
    </message>
    <message>
        <source>S&amp;eed:</source>
        <translation>S&amp;eed:</translation>
    </message>
    <message>
        <source>Sa&amp;ve</source>
        <translation>Speic&amp;hern</translation>
    </message>
    <message>
        <source>Seed: &apos;%1&apos; is not a whole number ≥ 0</source>
        <translation>Seed: &apos;%1&apos; ist keine ganze Zahl ≥ 0</translation>
    </message>
    <message>
        <source>Name: &apos;%1&apos; is a built-in preset&apos;s name; choose another</source>
        <translation>Name: &apos;%1&apos; ist der Name einer eingebauten Vorlage; wählen Sie einen anderen</translation>
    </message>
</context>
<context>
    <name>glance::ui::ChatPresetBar</name>
    <message>
        <source>Preset:</source>
        <translation>Vorlage:</translation>
    </message>
    <message>
        <source>Chat preset</source>
        <translation>Chat-Vorlage</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>Vorlagen</translation>
    </message>
    <message>
        <source>C&amp;hat presets</source>
        <translation>C&amp;hat-Vorlagen</translation>
    </message>
    <message>
        <source>&amp;New preset…</source>
        <translation>&amp;Neue Vorlage…</translation>
    </message>
    <message>
        <source>&amp;Edit preset…</source>
        <translation>Vorlage &amp;bearbeiten…</translation>
    </message>
    <message>
        <source>D&amp;uplicate preset…</source>
        <translation>Vorlage d&amp;uplizieren…</translation>
    </message>
    <message>
        <source>&amp;Delete preset</source>
        <translation>Vorlage &amp;löschen</translation>
    </message>
    <message>
        <source>&amp;Import presets…</source>
        <translation>Vorlagen &amp;importieren…</translation>
    </message>
    <message>
        <source>E&amp;xport presets…</source>
        <translation>Vorlagen e&amp;xportieren…</translation>
    </message>
    <message>
        <source>%1 (deleted)</source>
        <translation>%1 (gelöscht)</translation>
    </message>
    <message>
        <source>None (Settings)</source>
        <translation>Keine (Einstellungen)</translation>
    </message>
    <message>
        <source>The sampling and system prompt of File ▸ Settings</source>
        <translation>Sampling und Systemprompt aus Datei ▸ Einstellungen</translation>
    </message>
    <message>
        <source>My preset</source>
        <translation>Meine Vorlage</translation>
    </message>
    <message>
        <source>New chat preset</source>
        <translation>Neue Chat-Vorlage</translation>
    </message>
    <message>
        <source>Edit chat preset</source>
        <translation>Chat-Vorlage bearbeiten</translation>
    </message>
    <message>
        <source>Duplicate chat preset</source>
        <translation>Chat-Vorlage duplizieren</translation>
    </message>
    <message>
        <source>Delete preset</source>
        <translation>Vorlage löschen</translation>
    </message>
    <message>
        <source>Delete the chat preset &apos;%1&apos;?</source>
        <translation>Die Chat-Vorlage &apos;%1&apos; löschen?</translation>
    </message>
    <message>
        <source>Import chat presets</source>
        <translation>Chat-Vorlagen importieren</translation>
    </message>
    <message>
        <source>Chat presets (*.json)</source>
        <translation>Chat-Vorlagen (*.json)</translation>
    </message>
    <message numerus="yes">
        <source>Imported %n chat preset(s) from %1.</source>
        <translation>
            <numerusform>%n Chat-Vorlage aus %1 importiert.</numerusform>
            <numerusform>%n Chat-Vorlagen aus %1 importiert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Export chat presets</source>
        <translation>Chat-Vorlagen exportieren</translation>
    </message>
    <message>
        <source>chat-presets.json</source>
        <translation>chat-vorlagen.json</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n chat preset(s) to %1.</source>
        <translation>
            <numerusform>%n Chat-Vorlage nach %1 exportiert.</numerusform>
            <numerusform>%n Chat-Vorlagen nach %1 exportiert.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::ChatPresetDialog</name>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>empty: the one in File ▸ Settings</source>
        <translation>leer: der aus Datei ▸ Einstellungen</translation>
    </message>
    <message>
        <source>S&amp;ystem prompt:</source>
        <translation>S&amp;ystemprompt:</translation>
    </message>
    <message>
        <source>0 (greedy: the same answer every time)</source>
        <translation>0 (greedy: jedes Mal dieselbe Antwort)</translation>
    </message>
    <message>
        <source>&amp;Temperature:</source>
        <translation>&amp;Temperatur:</translation>
    </message>
    <message>
        <source>Top-&amp;p:</source>
        <translation>Top-&amp;p:</translation>
    </message>
    <message>
        <source>0 (off)</source>
        <translation>0 (aus)</translation>
    </message>
    <message>
        <source>Top-&amp;k:</source>
        <translation>Top-&amp;k:</translation>
    </message>
    <message>
        <source>empty: a new seed each answer</source>
        <translation>leer: ein neuer Seed je Antwort</translation>
    </message>
    <message>
        <source>S&amp;eed:</source>
        <translation>S&amp;eed:</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> Tokens</translation>
    </message>
    <message>
        <source>&amp;Answer at most:</source>
        <translation>&amp;Antwort höchstens:</translation>
    </message>
    <message>
        <source>The model&apos;s default</source>
        <translation>Standard des Modells</translation>
    </message>
    <message>
        <source>On</source>
        <translation>An</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>For models that can think before answering; others ignore it.</source>
        <translation>Für Modelle, die vor dem Antworten nachdenken können; andere ignorieren es.</translation>
    </message>
    <message>
        <source>T&amp;hinking:</source>
        <translation>Nach&amp;denken:</translation>
    </message>
    <message>
        <source>empty: the ones in File ▸ Settings</source>
        <translation>leer: die aus Datei ▸ Einstellungen</translation>
    </message>
    <message>
        <source>The answer ends before the first of these; it is not shown or saved. One a line; \n is a line break, \t a tab, \\ a backslash.</source>
        <translation>Die Antwort endet vor der ersten davon; sie wird nicht gezeigt oder gespeichert. Eine pro Zeile; \n ist ein Zeilenumbruch, \t ein Tabulator, \\ ein Backslash.</translation>
    </message>
    <message>
        <source>St&amp;op sequences:</source>
        <translation>St&amp;oppsequenzen:</translation>
    </message>
    <message>
        <source>Sa&amp;ve</source>
        <translation>Spei&amp;chern</translation>
    </message>
    <message>
        <source>Seed: &apos;%1&apos; is not a whole number ≥ 0</source>
        <translation>Seed: &apos;%1&apos; ist keine ganze Zahl ≥ 0</translation>
    </message>
    <message>
        <source>Stop sequences: %1</source>
        <translation>Stoppsequenzen: %1</translation>
    </message>
    <message>
        <source>Name: &apos;%1&apos; is a built-in preset&apos;s name; choose another</source>
        <translation>Name: &apos;%1&apos; ist der Name einer eingebauten Vorlage; wählen Sie einen anderen</translation>
    </message>
    <message>
        <source>As in File ▸ Settings</source>
        <translation>Wie in Datei ▸ Einstellungen</translation>
    </message>
    <message>
        <source>Detail (the image&apos;s own size)</source>
        <translation>Detail (die eigene Größe des Bildes)</translation>
    </message>
    <message>
        <source>How the images attached while this preset is chosen are read: fast is quick, detail sees small things and text but takes longer.</source>
        <translation>Wie die Bilder gelesen werden, die angehängt werden, solange diese Vorlage gewählt ist: schnell geht rasch, Detail sieht kleine Dinge und Text, dauert aber länger.</translation>
    </message>
    <message>
        <source>&amp;Image mode:</source>
        <translation>&amp;Bildmodus:</translation>
    </message>
    <message>
        <source>Fast (224×224, 49 tokens)</source>
        <translation>Schnell (224×224, 49 Tokens)</translation>
    </message>
</context>
<context>
    <name>glance::ui::ChatPresetStore</name>
    <message>
        <source>Chat presets: %1 (kept as %2.unreadable)</source>
        <translation>Chat-Vorlagen: %1 (aufbewahrt als %2.unreadable)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a built-in preset&apos;s name; choose another</source>
        <translation>&apos;%1&apos; ist der Name einer eingebauten Vorlage; wählen Sie einen anderen</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a saved preset (a built-in is not exported; Duplicate it first)</source>
        <translation>&apos;%1&apos; ist keine gespeicherte Vorlage (eingebaute werden nicht exportiert; erst duplizieren)</translation>
    </message>
</context>
<context>
    <name>glance::ui::ChatView</name>
    <message>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>Drop an image and Glance describes it. Ask follow-up questions below.</source>
        <translation>Ziehen Sie ein Bild hierher, und Glance beschreibt es. Stellen Sie unten Rückfragen.</translation>
    </message>
    <message>
        <source>Ask about the image… (Enter sends, Shift+Enter: new line)</source>
        <translation>Fragen Sie zum Bild… (Enter sendet, Umschalt+Enter: neue Zeile)</translation>
    </message>
    <message>
        <source>&amp;Send</source>
        <translation>&amp;Senden</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;toppen</translation>
    </message>
    <message>
        <source>Stop generating</source>
        <translation>Generieren stoppen</translation>
    </message>
    <message>
        <source>&amp;Regenerate</source>
        <translation>&amp;Neu generieren</translation>
    </message>
    <message>
        <source>Answer the last message again</source>
        <translation>Die letzte Nachricht erneut beantworten</translation>
    </message>
    <message>
        <source>&amp;Edit last</source>
        <translation>Letzte &amp;bearbeiten</translation>
    </message>
    <message>
        <source>Edit the last message and send it again</source>
        <translation>Die letzte Nachricht bearbeiten und erneut senden</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>Neuer &amp;Chat</translation>
    </message>
    <message>
        <source>Start a new conversation</source>
        <translation>Eine neue Unterhaltung beginnen</translation>
    </message>
    <message>
        <source>Cop&amp;y last answer</source>
        <translation>Letzte Antwort &amp;kopieren</translation>
    </message>
    <message>
        <source>Copy the last answer as Markdown</source>
        <translation>Die letzte Antwort als Markdown kopieren</translation>
    </message>
    <message>
        <source>&amp;Previous answer</source>
        <translation>&amp;Vorherige Antwort</translation>
    </message>
    <message>
        <source>Show the last message&apos;s previous answer (Regenerate keeps them)</source>
        <translation>Die vorherige Antwort auf die letzte Nachricht zeigen (Neu generieren behält sie)</translation>
    </message>
    <message>
        <source>Ne&amp;xt answer</source>
        <translation>Nächste Ant&amp;wort</translation>
    </message>
    <message>
        <source>Show the last message&apos;s next answer</source>
        <translation>Die nächste Antwort auf die letzte Nachricht zeigen</translation>
    </message>
    <message>
        <source>Wait for the answer (or Stop it) first.</source>
        <translation>Warten Sie erst die Antwort ab (oder stoppen Sie sie).</translation>
    </message>
    <message>
        <source>Code copied.</source>
        <translation>Code kopiert.</translation>
    </message>
    <message>
        <source>Answer copied.</source>
        <translation>Antwort kopiert.</translation>
    </message>
    <message>
        <source>Links to files are not opened: %1</source>
        <translation>Links auf Dateien werden nicht geöffnet: %1</translation>
    </message>
    <message>
        <source> · stopped</source>
        <translation> · gestoppt</translation>
    </message>
    <message>
        <source> · length limit</source>
        <translation> · Längenlimit</translation>
    </message>
    <message>
        <source> · context full</source>
        <translation> · Kontext voll</translation>
    </message>
    <message>
        <source> · stop sequence</source>
        <translation> · Stoppsequenz</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>**You**</source>
        <translation>**Sie**</translation>
    </message>
    <message>
        <source>**Glance**</source>
        <translation>**Glance**</translation>
    </message>
    <message>
        <source>*(no visible text: the answer was only spaces, line breaks or special tokens)*</source>
        <translation>*(kein sichtbarer Text: Die Antwort bestand nur aus Leerzeichen, Zeilenumbrüchen oder Sondertokens)*</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Bearbeiten</translation>
    </message>
    <message>
        <source>Edit this message and send it again</source>
        <translation>Diese Nachricht bearbeiten und erneut senden</translation>
    </message>
    <message>
        <source>Glance</source>
        <translation>Glance</translation>
    </message>
    <message>
        <source>(no visible text: the answer was only spaces, line breaks or special tokens)</source>
        <translation>(kein sichtbarer Text: Die Antwort bestand nur aus Leerzeichen, Zeilenumbrüchen oder Sondertokens)</translation>
    </message>
    <message>
        <source>Copy this answer (Markdown)</source>
        <translation>Diese Antwort kopieren (Markdown)</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Fork</source>
        <translation>Abzweigen</translation>
    </message>
    <message>
        <source>Fork: a new chat with the messages up to this answer</source>
        <translation>Abzweigen: ein neuer Chat mit den Nachrichten bis zu dieser Antwort</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>Aufmerksamkeit</translation>
    </message>
    <message>
        <source>Show where this answer looked in its image</source>
        <translation>Zeigen, wohin diese Antwort in ihrem Bild geschaut hat</translation>
    </message>
    <message>
        <source>Previous answer (%1 of %2)</source>
        <translation>Vorherige Antwort (%1 von %2)</translation>
    </message>
    <message>
        <source>answer %1 of %2</source>
        <translation>Antwort %1 von %2</translation>
    </message>
    <message>
        <source>Next answer (%1 of %2)</source>
        <translation>Nächste Antwort (%1 von %2)</translation>
    </message>
    <message>
        <source>Editing message %1 — Enter resends it, Esc cancels</source>
        <translation>Nachricht %1 wird bearbeitet — Enter sendet sie erneut, Esc bricht ab</translation>
    </message>
    <message>
        <source>Editing the last message — Enter resends, Esc cancels</source>
        <translation>Letzte Nachricht wird bearbeitet — Enter sendet erneut, Esc bricht ab</translation>
    </message>
    <message>
        <source> · re-read the chat first in %1</source>
        <translation> · Chat zuerst in %1 neu eingelesen</translation>
    </message>
</context>
<context>
    <name>glance::ui::ContextMeter</name>
    <message>
        <source>Context used</source>
        <translation>Belegter Kontext</translation>
    </message>
    <message>
        <source>%1 + ≈%2 / %3 tokens</source>
        <translation>%1 + ≈%2 / %3 Tokens</translation>
    </message>
    <message>
        <source>%1 / %2 tokens</source>
        <translation>%1 / %2 Tokens</translation>
    </message>
    <message>
        <source>The conversation holds about %1 of the model&apos;s %2 tokens of context, the answer being written included.</source>
        <translation>Die Unterhaltung belegt etwa %1 der %2 Kontext-Tokens des Modells, einschließlich der Antwort, die gerade geschrieben wird.</translation>
    </message>
    <message>
        <source>The conversation holds %1 of the model&apos;s %2 tokens of context.</source>
        <translation>Die Unterhaltung belegt %1 der %2 Kontext-Tokens des Modells.</translation>
    </message>
    <message>
        <source>The next message adds about %1 (%2 of them for its images).</source>
        <translation>Die nächste Nachricht fügt etwa %1 hinzu (%2 davon für ihre Bilder).</translation>
    </message>
    <message>
        <source>It would not fit: Glance will refuse to send it and the conversation stays as it is. Remove an image, shorten the message or start a New chat.</source>
        <translation>Sie würde nicht passen: Glance sendet sie nicht, und die Unterhaltung bleibt, wie sie ist. Entfernen Sie ein Bild, kürzen Sie die Nachricht oder beginnen Sie einen neuen Chat.</translation>
    </message>
    <message>
        <source>It leaves room for about %1 answer tokens: the answer stops there (marked “context full” under it). A New chat has the whole context.</source>
        <translation>Sie lässt Platz für etwa %1 Antwort-Tokens: Dort stoppt die Antwort (darunter mit „Kontext voll“ markiert). Ein neuer Chat hat den ganzen Kontext.</translation>
    </message>
</context>
<context>
    <name>glance::ui::ConversationSidebar</name>
    <message>
        <source>Search conversations</source>
        <translation>Unterhaltungen durchsuchen</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>Eine neue Unterhaltung beginnen (Strg+N)</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>Umbenennen</translation>
    </message>
    <message>
        <source>Rename the selected conversation</source>
        <translation>Die gewählte Unterhaltung umbenennen</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Delete the selected conversation</source>
        <translation>Die gewählte Unterhaltung löschen</translation>
    </message>
    <message>
        <source>(untitled)</source>
        <translation>(ohne Titel)</translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation>„%1“ gelöscht.</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>Unterhaltung umbenennen</translation>
    </message>
    <message>
        <source>Title:</source>
        <translation>Titel:</translation>
    </message>
</context>
<context>
    <name>glance::ui::ConversationStore</name>
    <message>
        <source>Skipped %1: %2</source>
        <translation>%1 übersprungen: %2</translation>
    </message>
    <message>
        <source>Invalid conversation id &apos;%1&apos;</source>
        <translation>Ungültige Unterhaltungs-ID &apos;%1&apos;</translation>
    </message>
    <message>
        <source>Cannot create %1; check its permissions.</source>
        <translation>%1 kann nicht angelegt werden; prüfen Sie die Berechtigungen.</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>%1 kann nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>No saved conversation &apos;%1&apos;</source>
        <translation>Keine gespeicherte Unterhaltung &apos;%1&apos;</translation>
    </message>
    <message>
        <source>Cannot delete %1: %2</source>
        <translation>%1 kann nicht gelöscht werden: %2</translation>
    </message>
    <message>
        <source>No deleted conversation &apos;%1&apos; to restore</source>
        <translation>Keine gelöschte Unterhaltung &apos;%1&apos; zum Wiederherstellen</translation>
    </message>
    <message>
        <source>Cannot restore %1: %2</source>
        <translation>%1 kann nicht wiederhergestellt werden: %2</translation>
    </message>
    <message>
        <source>The pasted image could not be encoded as PNG.</source>
        <translation>Das eingefügte Bild konnte nicht als PNG kodiert werden.</translation>
    </message>
    <message>
        <source>Cannot read %1: it is not a regular file</source>
        <translation>%1 kann nicht gelesen werden: Es ist keine reguläre Datei</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
</context>
<context>
    <name>glance::ui::DownloadDialog</name>
    <message>
        <source>Download a model</source>
        <translation>Modell herunterladen</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Cancel download</source>
        <translation>Download abbrechen</translation>
    </message>
    <message>
        <source>Load it now</source>
        <translation>Jetzt laden</translation>
    </message>
    <message>
        <source>&amp;Folder…</source>
        <translation>&amp;Ordner…</translation>
    </message>
    <message>
        <source>Choose the folder models are downloaded into</source>
        <translation>Den Ordner wählen, in den Modelle heruntergeladen werden</translation>
    </message>
    <message>
        <source>Download models into</source>
        <translation>Modelle herunterladen nach</translation>
    </message>
    <message>
        <source>File %1 of %2: %3</source>
        <translation>Datei %1 von %2: %3</translation>
    </message>
    <message>
        <source>Downloaded to %1. Load it now?</source>
        <translation>Heruntergeladen nach %1. Jetzt laden?</translation>
    </message>
    <message>
        <source>Download failed: %1</source>
        <translation>Download fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Cancelled. Press Resume to continue where it stopped.</source>
        <translation>Abgebrochen. Fortsetzen macht dort weiter, wo er aufhörte.</translation>
    </message>
    <message>
        <source>Models are downloaded from Hugging Face into %1%2. An interrupted download resumes where it stopped.</source>
        <translation>Modelle werden von Hugging Face nach %1%2 heruntergeladen. Ein unterbrochener Download wird dort fortgesetzt, wo er aufhörte.</translation>
    </message>
    <message>
        <source> (%1 free)</source>
        <translation> (%1 frei)</translation>
    </message>
    <message>
        <source>Not enough free space in %1: %2 needs %3 more, %4 free. Free some space or choose another folder (Folder…).</source>
        <translation>Nicht genug freier Platz in %1: %2 braucht %3 mehr, %4 frei. Schaffen Sie Platz oder wählen Sie einen anderen Ordner (Ordner…).</translation>
    </message>
    <message>
        <source>Starting %1…</source>
        <translation>%1 wird gestartet…</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
</context>
<context>
    <name>glance::ui::EngineWorker</name>
    <message>
        <source>No model is loaded.</source>
        <translation>Kein Modell geladen.</translation>
    </message>
    <message>
        <source>it is computed for the latest answer only; show that answer&apos;s attention first</source>
        <translation>er wird nur für die neueste Antwort berechnet; zeigen Sie zuerst die Aufmerksamkeit dieser Antwort</translation>
    </message>
    <message>
        <source>the same image as %1</source>
        <translation>dasselbe Bild wie %1</translation>
    </message>
    <message>
        <source>Stopped after %1 captioned (the rest on the next run): %2</source>
        <translation>Gestoppt nach %1 beschrifteten (der Rest beim nächsten Lauf): %2</translation>
    </message>
    <message>
        <source>Load a model first: the local server serves it.</source>
        <translation>Laden Sie zuerst ein Modell: Der lokale Server stellt es bereit.</translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderCaptionDialog</name>
    <message>
        <source>Caption into sidecar files</source>
        <translation>In Begleitdateien beschriften</translation>
    </message>
    <message>
        <source>The images without a caption</source>
        <translation>Die Bilder ohne Beschriftung</translation>
    </message>
    <message>
        <source>The whole folder</source>
        <translation>Den ganzen Ordner</translation>
    </message>
    <message>
        <source>&amp;Caption:</source>
        <translation>&amp;Beschriftung:</translation>
    </message>
    <message>
        <source>A caption preset: the question, the caption&apos;s length and the sampling (glance-cli caption --preset NAME uses the same ones)</source>
        <translation>Eine Beschriftungsvorlage: die Frage, die Länge der Beschriftung und das Sampling (glance-cli caption --preset NAME nutzt dieselben)</translation>
    </message>
    <message>
        <source>Prese&amp;t:</source>
        <translation>&amp;Vorlage:</translation>
    </message>
    <message>
        <source>&amp;New…</source>
        <translation>&amp;Neu…</translation>
    </message>
    <message>
        <source>E&amp;dit…</source>
        <translation>Bea&amp;rbeiten…</translation>
    </message>
    <message>
        <source>De&amp;lete</source>
        <translation>&amp;Löschen</translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation>&amp;Importieren…</translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation>E&amp;xportieren…</translation>
    </message>
    <message>
        <source>Import caption presets</source>
        <translation>Beschriftungsvorlagen importieren</translation>
    </message>
    <message>
        <source>Caption presets (*.json);;All files (*)</source>
        <translation>Beschriftungsvorlagen (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Export caption presets</source>
        <translation>Beschriftungsvorlagen exportieren</translation>
    </message>
    <message>
        <source>Caption presets (*.json)</source>
        <translation>Beschriftungsvorlagen (*.json)</translation>
    </message>
    <message>
        <source>Describe this image.</source>
        <translation>Describe this image.</translation>
    </message>
    <message>
        <source>&amp;Question:</source>
        <translation>&amp;Frage:</translation>
    </message>
    <message>
        <source>photo.jpg → photo.txt, the layout image-model trainers read</source>
        <translation>foto.jpg → foto.txt, das Format, das Trainer für Bildmodelle lesen</translation>
    </message>
    <message>
        <source>Sidecar &amp;extension:</source>
        <translation>&amp;Endung der Begleitdatei:</translation>
    </message>
    <message>
        <source>Skip the image</source>
        <translation>Bild überspringen</translation>
    </message>
    <message>
        <source>Overwrite it</source>
        <translation>Überschreiben</translation>
    </message>
    <message>
        <source>Append the new caption</source>
        <translation>Neue Beschriftung anhängen</translation>
    </message>
    <message>
        <source>Prepend the new caption</source>
        <translation>Neue Beschriftung voranstellen</translation>
    </message>
    <message>
        <source>When it &amp;has a caption:</source>
        <translation>Wenn schon eine Beschriftung &amp;da ist:</translation>
    </message>
    <message>
        <source>optional trigger word, e.g. sks</source>
        <translation>optionales Triggerwort, z. B. sks</translation>
    </message>
    <message>
        <source>&amp;Prefix:</source>
        <translation>&amp;Präfix:</translation>
    </message>
    <message>
        <source>Also change captions edited by hand</source>
        <translation>Auch von Hand bearbeitete Beschriftungen ändern</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>None: my own question</source>
        <translation>Keine: meine eigene Frage</translation>
    </message>
    <message>
        <source>%1 (built-in)</source>
        <translation>%1 (eingebaut)</translation>
    </message>
    <message>
        <source>Asked by the preset (at most %1 tokens, %2); Edit… changes it</source>
        <translation>Von der Vorlage gefragt (höchstens %1 Tokens, %2); Bearbeiten… ändert es</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>Temperatur %1</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>greedy</translation>
    </message>
    <message>
        <source>fills {%1} in the preset&apos;s instructions</source>
        <translation>füllt {%1} in den Anweisungen der Vorlage</translation>
    </message>
    <message>
        <source>Delete caption preset</source>
        <translation>Beschriftungsvorlage löschen</translation>
    </message>
    <message>
        <source>Delete the preset &apos;%1&apos;?</source>
        <translation>Die Vorlage &apos;%1&apos; löschen?</translation>
    </message>
    <message>
        <source>Import: %1</source>
        <translation>Import: %1</translation>
    </message>
    <message>
        <source>Export: %1</source>
        <translation>Export: %1</translation>
    </message>
    <message>
        <source>Sidecar extension: %1</source>
        <translation>Endung der Begleitdatei: %1</translation>
    </message>
    <message>
        <source>{%1}: give the value the preset&apos;s instructions use</source>
        <translation>{%1}: Geben Sie den Wert an, den die Anweisungen der Vorlage nutzen</translation>
    </message>
    <message>
        <source>Asking %1…</source>
        <translation>Frage %1…</translation>
    </message>
    <message numerus="yes">
        <source>The selected (%n image(s))</source>
        <translation>
            <numerusform>Das ausgewählte (%n Bild)</numerusform>
            <numerusform>Die ausgewählten (%n Bilder)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n preset(s) from %1.</source>
        <translation>
            <numerusform>%n Vorlage aus %1 importiert.</numerusform>
            <numerusform>%n Vorlagen aus %1 importiert.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n preset(s) to %1.</source>
        <translation>
            <numerusform>%n Vorlage nach %1 exportiert.</numerusform>
            <numerusform>%n Vorlagen nach %1 exportiert.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderInsightBar</name>
    <message>
        <source>&amp;Looked at for:</source>
        <translation>&amp;Geschaut für:</translation>
    </message>
    <message>
        <source>Where the model looked in the image while it wrote this word of the caption</source>
        <translation>Wohin das Modell im Bild geschaut hat, während es dieses Wort der Beschriftung schrieb</translation>
    </message>
    <message>
        <source>(the image only)</source>
        <translation>(nur das Bild)</translation>
    </message>
    <message>
        <source> (here)</source>
        <translation> (hier)</translation>
    </message>
    <message>
        <source> (on %1)</source>
        <translation> (auf %1)</translation>
    </message>
    <message>
        <source>Captioned in %1: prefill %2, %3 tokens at %4</source>
        <translation>Beschriftet in %1: Prefill %2, %3 Tokens mit %4</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>Tokens/s</translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderModel</name>
    <message>
        <source>no caption</source>
        <translation>keine Beschriftung</translation>
    </message>
    <message>
        <source>captioned</source>
        <translation>beschriftet</translation>
    </message>
    <message>
        <source>edited by hand</source>
        <translation>von Hand bearbeitet</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderReplaceDialog</name>
    <message>
        <source>Find and replace in captions</source>
        <translation>In Beschriftungen suchen und ersetzen</translation>
    </message>
    <message>
        <source>&amp;Find:</source>
        <translation>&amp;Suchen:</translation>
    </message>
    <message>
        <source>Replace &amp;with:</source>
        <translation>Ersetzen &amp;durch:</translation>
    </message>
    <message>
        <source>&amp;Regular expression ($1 names a group)</source>
        <translation>&amp;Regulärer Ausdruck ($1 benennt eine Gruppe)</translation>
    </message>
    <message>
        <source>&amp;Ignore case</source>
        <translation>&amp;Groß-/Kleinschreibung ignorieren</translation>
    </message>
    <message>
        <source>Caption file</source>
        <translation>Beschriftungsdatei</translation>
    </message>
    <message>
        <source>Now</source>
        <translation>Jetzt</translation>
    </message>
    <message>
        <source>After</source>
        <translation>Danach</translation>
    </message>
    <message>
        <source>&amp;Preview</source>
        <translation>&amp;Vorschau</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>&amp;Anwenden</translation>
    </message>
    <message>
        <source>&amp;Undo the last replace</source>
        <translation>Letztes Ersetzen rückgängig &amp;machen</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>%1 in %2; Apply writes them all.</source>
        <translation>%1 in %2; Anwenden schreibt sie alle.</translation>
    </message>
    <message>
        <source>Not read: %1</source>
        <translation>Nicht gelesen: %1</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <source>Replace with</source>
        <translation>Ersetzen durch</translation>
    </message>
    <message numerus="yes">
        <source>None of the %n caption file(s) matches.</source>
        <translation>
            <numerusform>Die %n Beschriftungsdatei passt nicht.</numerusform>
            <numerusform>Keine der %n Beschriftungsdateien passt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n Änderung</numerusform>
            <numerusform>%n Änderungen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n caption file(s)</source>
        <translation>
            <numerusform>%n Beschriftungsdatei</numerusform>
            <numerusform>%n Beschriftungsdateien</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Changed %n caption file(s).</source>
        <translation>
            <numerusform>%n Beschriftungsdatei geändert.</numerusform>
            <numerusform>%n Beschriftungsdateien geändert.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Left %n file(s) changed since the preview</source>
        <translation>
            <numerusform>%n seit der Vorschau geänderte Datei gelassen</numerusform>
            <numerusform>%n seit der Vorschau geänderte Dateien gelassen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Undone: %n caption file(s) put back.</source>
        <translation>
            <numerusform>Rückgängig gemacht: %n Beschriftungsdatei zurückgesetzt.</numerusform>
            <numerusform>Rückgängig gemacht: %n Beschriftungsdateien zurückgesetzt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Left %n file(s) edited since</source>
        <translation>
            <numerusform>%n seither bearbeitete Datei gelassen</numerusform>
            <numerusform>%n seither bearbeitete Dateien gelassen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::FolderWindow</name>
    <message>
        <source>Folder — Glance</source>
        <translation>Ordner — Glance</translation>
    </message>
    <message>
        <source>All images</source>
        <translation>Alle Bilder</translation>
    </message>
    <message>
        <source>No caption</source>
        <translation>Keine Beschriftung</translation>
    </message>
    <message>
        <source>Captioned</source>
        <translation>Beschriftet</translation>
    </message>
    <message>
        <source>Edited by hand</source>
        <translation>Von Hand bearbeitet</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Caption contains…</source>
        <translation>Beschriftung enthält…</translation>
    </message>
    <message>
        <source>No caption yet: type one, or caption the folder (Caption ▸ Caption into sidecar files…, Ctrl+R).</source>
        <translation>Noch keine Beschriftung: Tippen Sie eine ein oder beschriften Sie den Ordner (Beschriften ▸ In Begleitdateien beschriften…, Strg+R).</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open folder…</source>
        <translation>Ordner ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Include &amp;subfolders</source>
        <translation>&amp;Unterordner einbeziehen</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>&amp;Schließen</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>&amp;Wiederholen</translation>
    </message>
    <message>
        <source>Find and &amp;replace in captions…</source>
        <translation>In Beschriftungen suchen und &amp;ersetzen…</translation>
    </message>
    <message>
        <source>&amp;Filter by caption text</source>
        <translation>Nach Beschriftungstext &amp;filtern</translation>
    </message>
    <message>
        <source>&amp;Go</source>
        <translation>&amp;Gehe zu</translation>
    </message>
    <message>
        <source>&amp;Next image</source>
        <translation>&amp;Nächstes Bild</translation>
    </message>
    <message>
        <source>&amp;Previous image</source>
        <translation>&amp;Vorheriges Bild</translation>
    </message>
    <message>
        <source>First &amp;without a caption</source>
        <translation>Erstes &amp;ohne Beschriftung</translation>
    </message>
    <message>
        <source>&amp;Caption</source>
        <translation>&amp;Beschriften</translation>
    </message>
    <message>
        <source>&amp;Caption into sidecar files…</source>
        <translation>In &amp;Begleitdateien beschriften…</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Stoppen</translation>
    </message>
    <message>
        <source>A caption run is going: stop it first.</source>
        <translation>Ein Beschriftungslauf läuft: Stoppen Sie ihn zuerst.</translation>
    </message>
    <message>
        <source>%1 — Glance</source>
        <translation>%1 — Glance</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>Ordner öffnen</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>&amp;Durchsuchen…</translation>
    </message>
    <message>
        <source>Folder of images</source>
        <translation>Ordner mit Bildern</translation>
    </message>
    <message>
        <source>Every image has a caption.</source>
        <translation>Jedes Bild hat eine Beschriftung.</translation>
    </message>
    <message>
        <source>%1 of %2 shown</source>
        <translation>%1 von %2 gezeigt</translation>
    </message>
    <message>
        <source>Cannot show this image: %1</source>
        <translation>Dieses Bild kann nicht gezeigt werden: %1</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>Nicht gespeichert: %1</translation>
    </message>
    <message>
        <source>Saved %1 (edited by hand)</source>
        <translation>%1 gespeichert (von Hand bearbeitet)</translation>
    </message>
    <message>
        <source>%1 captioned · %2 edited by hand · %3 no caption · %4 failed</source>
        <translation>%1 beschriftet · %2 von Hand bearbeitet · %3 ohne Beschriftung · %4 fehlgeschlagen</translation>
    </message>
    <message>
        <source>A caption run is going already.</source>
        <translation>Es läuft bereits ein Beschriftungslauf.</translation>
    </message>
    <message>
        <source>Load a model first (in the main window): captioning needs one.</source>
        <translation>Laden Sie zuerst ein Modell (im Hauptfenster): Beschriften braucht eines.</translation>
    </message>
    <message>
        <source>Open a folder first.</source>
        <translation>Öffnen Sie zuerst einen Ordner.</translation>
    </message>
    <message>
        <source>Select the images to caption first.</source>
        <translation>Wählen Sie zuerst die zu beschriftenden Bilder aus.</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Wird gestartet…</translation>
    </message>
    <message>
        <source>Starting with the preset &apos;%1&apos;…</source>
        <translation>Start mit der Vorlage &apos;%1&apos;…</translation>
    </message>
    <message>
        <source>through %1</source>
        <translation>über %1</translation>
    </message>
    <message>
        <source>Captioned %1 of %2</source>
        <translation>%1 von %2 beschriftet</translation>
    </message>
    <message>
        <source>Captioning %1 (%2 of %3)</source>
        <translation>%1 wird beschriftet (%2 von %3)</translation>
    </message>
    <message>
        <source>Stopped: %1 captioned.</source>
        <translation>Gestoppt: %1 beschriftet.</translation>
    </message>
    <message>
        <source>Done: %1 captioned.</source>
        <translation>Fertig: %1 beschriftet.</translation>
    </message>
    <message>
        <source>%1 failed.</source>
        <translation>%1 fehlgeschlagen.</translation>
    </message>
    <message>
        <source>1 caption edited by hand left as it was.</source>
        <translation>1 von Hand bearbeitete Beschriftung blieb unverändert.</translation>
    </message>
    <message>
        <source>%1 captions edited by hand left as they were.</source>
        <translation>%1 von Hand bearbeitete Beschriftungen blieben unverändert.</translation>
    </message>
    <message>
        <source>Describe this image.</source>
        <translation>Describe this image.</translation>
    </message>
    <message>
        <source>There is no caption preset called &apos;%1&apos;.</source>
        <translation>Es gibt keine Beschriftungsvorlage namens &apos;%1&apos;.</translation>
    </message>
    <message>
        <source>The preset &apos;%1&apos; uses {%2}: give its value in the caption dialog.</source>
        <translation>Die Vorlage &apos;%1&apos; nutzt {%2}: Geben Sie den Wert im Beschriftungsdialog an.</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird gestoppt…</translation>
    </message>
    <message numerus="yes">
        <source>%n image(s)</source>
        <translation>
            <numerusform>%n Bild</numerusform>
            <numerusform>%n Bilder</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a folder of images: File ▸ Open folder…</source>
        <translation>Öffnen Sie einen Ordner mit Bildern: Datei ▸ Ordner öffnen…</translation>
    </message>
    <message>
        <source>Choose an image to see and edit its caption.</source>
        <translation>Wählen Sie ein Bild, um seine Beschriftung zu sehen und zu bearbeiten.</translation>
    </message>
</context>
<context>
    <name>glance::ui::HeatmapWidget</name>
    <message>
        <source>Wheel or +/− zooms, drag pans, double-click shows the whole image.</source>
        <translation>Mausrad oder +/− zoomt, Ziehen verschiebt, Doppelklick zeigt das ganze Bild.</translation>
    </message>
    <message>
        <source>row %1, col %2 · weight %3</source>
        <translation>Zeile %1, Spalte %2 · Gewicht %3</translation>
    </message>
    <message>
        <source> (%1% of this map)</source>
        <translation> (%1 % dieser Karte)</translation>
    </message>
    <message>
        <source>row %1, col %2 · %3 (%4%)</source>
        <translation>Zeile %1, Spalte %2 · %3 (%4 %)</translation>
    </message>
    <message>
        <source>r%1 c%2 · %3</source>
        <translation>Z%1 S%2 · %3</translation>
    </message>
    <message>
        <source>attention weight, log scale</source>
        <translation>Aufmerksamkeitsgewicht, logarithmisch</translation>
    </message>
    <message>
        <source>attention weight</source>
        <translation>Aufmerksamkeitsgewicht</translation>
    </message>
    <message>
        <source>attention weight, 2nd–98th pct</source>
        <translation>Aufmerksamkeitsgewicht, 2.–98. Perz.</translation>
    </message>
    <message>
        <source>, same for both words</source>
        <translation>, gleich für beide Wörter</translation>
    </message>
    <message>
        <source>, same for every word</source>
        <translation>, gleich für jedes Wort</translation>
    </message>
    <message>
        <source> (sinks grey)</source>
        <translation> (Senken grau)</translation>
    </message>
</context>
<context>
    <name>glance::ui::ImageDropArea</name>
    <message>
        <source>Drop an image here, paste one (Ctrl+V) or open a file.</source>
        <translation>Ziehen Sie ein Bild hierher, fügen Sie eines ein (Strg+V) oder öffnen Sie eine Datei.</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>Öffnen…</translation>
    </message>
    <message>
        <source>Paste</source>
        <translation>Einfügen</translation>
    </message>
    <message>
        <source>Try a demo scene</source>
        <translation>Demoszene ausprobieren</translation>
    </message>
    <message>
        <source>Only local files can be attached (got %1).</source>
        <translation>Nur lokale Dateien können angehängt werden (erhalten: %1).</translation>
    </message>
    <message>
        <source>The pasted data is not an image Glance can read.</source>
        <translation>Die eingefügten Daten sind kein Bild, das Glance lesen kann.</translation>
    </message>
    <message>
        <source>That is not an image: drop an image file or image data.</source>
        <translation>Das ist kein Bild: Ziehen Sie eine Bilddatei oder Bilddaten hierher.</translation>
    </message>
    <message>
        <source>Attach an image</source>
        <translation>Bild anhängen</translation>
    </message>
    <message>
        <source>Images (%1);;All files (*)</source>
        <translation>Bilder (%1);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>%1 is not a file.</source>
        <translation>%1 ist keine Datei.</translation>
    </message>
    <message>
        <source>%1 is not an image Glance can read (%2).</source>
        <translation>%1 ist kein Bild, das Glance lesen kann (%2).</translation>
    </message>
    <message>
        <source>Pasted image</source>
        <translation>Eingefügtes Bild</translation>
    </message>
    <message>
        <source>Encoding… (Esc stops)</source>
        <translation>Wird kodiert… (Esc stoppt)</translation>
    </message>
    <message>
        <source>The image&apos;s thumbnail</source>
        <translation>Vorschaubild des Bildes</translation>
    </message>
</context>
<context>
    <name>glance::ui::LayerHeadChart</name>
    <message>
        <source>Layer × head chart</source>
        <translation>Diagramm Schicht × Kopf</translation>
    </message>
    <message>
        <source>DeltaNet, hidden attention</source>
        <translation>DeltaNet, verborgene Aufmerksamkeit</translation>
    </message>
    <message>
        <source>full attention</source>
        <translation>Full Attention</translation>
    </message>
    <message>
        <source>Layer %1 (%2), head %3
image %4 · text %5 · sink %6</source>
        <translation>Schicht %1 (%2), Kopf %3
Bild %4 · Text %5 · Senke %6</translation>
    </message>
    <message>
        <source>
Fractions of the signed sum of its weights: they add up to 100 % but can be negative.</source>
        <translation>
Anteile an der vorzeichenbehafteten Summe ihrer Gewichte: Sie ergeben zusammen 100 %, können aber negativ sein.</translation>
    </message>
    <message>
        <source>
Click to show this layer and head.</source>
        <translation>
Klicken, um diese Schicht und diesen Kopf zu zeigen.</translation>
    </message>
    <message>
        <source>Layer × head shares: not captured</source>
        <translation>Anteile Schicht × Kopf: nicht erfasst</translation>
    </message>
    <message>
        <source>Layer × head: each cell is one head of one layer (columns: layers, the full-attention ones in bold; rows: heads), its colour the share of the word&apos;s attention on the image, from 0 (dark) to %1 % (bright).</source>
        <translation>Schicht × Kopf: Jede Zelle ist ein Kopf einer Schicht (Spalten: Schichten, die mit Full Attention fett; Zeilen: Köpfe), ihre Farbe der Anteil der Aufmerksamkeit des Worts auf dem Bild, von 0 (dunkel) bis %1 % (hell).</translation>
    </message>
    <message>
        <source>Layer × head: not saved</source>
        <translation>Schicht × Kopf: nicht gespeichert</translation>
    </message>
</context>
<context>
    <name>glance::ui::MainWindow</name>
    <message>
        <source>Conversations</source>
        <translation>Unterhaltungen</translation>
    </message>
    <message>
        <source>Image and attention</source>
        <translation>Bild und Aufmerksamkeit</translation>
    </message>
    <message>
        <source>Timing</source>
        <translation>Zeitmessung</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Open &amp;image…</source>
        <translation>Bild ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>&amp;Paste image</source>
        <translation>Bild e&amp;infügen</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>Einstellu&amp;ngen…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>&amp;Chat</translation>
    </message>
    <message>
        <source>&amp;Caption dropped images</source>
        <translation>&amp;Abgelegte Bilder beschriften</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>Layout &amp;zurücksetzen</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Farbschema</translation>
    </message>
    <message>
        <source>Follow &amp;system</source>
        <translation>&amp;System folgen</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Hell</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Dunkel</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Try a &amp;demo scene</source>
        <translation>&amp;Demoszene ausprobieren</translation>
    </message>
    <message>
        <source>&amp;Model info</source>
        <translation>&amp;Modellinfo</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>&amp;Tastenkürzel</translation>
    </message>
    <message>
        <source>&amp;About Glance</source>
        <translation>&amp;Über Glance</translation>
    </message>
    <message>
        <source>About Glance</source>
        <translation>Über Glance</translation>
    </message>
    <message>
        <source>&lt;b&gt;Glance %1&lt;/b&gt;&lt;p&gt;Private, inspectable image captioning and chat with Qwen3.5, on your CPU.&lt;/p&gt;</source>
        <translation>&lt;b&gt;Glance %1&lt;/b&gt;&lt;p&gt;Private, nachvollziehbare Bildbeschreibung und Chat mit Qwen3.5, auf Ihrer CPU.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>Kein Modell</translation>
    </message>
    <message>
        <source>Decoding speed</source>
        <translation>Dekodiergeschwindigkeit</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>%1 MiB resident</source>
        <translation>%1 MiB belegt</translation>
    </message>
    <message>
        <source>E&amp;xport conversation as Markdown…</source>
        <translation>Unterhaltung als Markdown e&amp;xportieren…</translation>
    </message>
    <message>
        <source>Export as Markdown</source>
        <translation>Als Markdown exportieren</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>Export conversation as &amp;JSON…</source>
        <translation>Unterhaltung als &amp;JSON exportieren…</translation>
    </message>
    <message>
        <source>Export as JSON</source>
        <translation>Als JSON exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Read-only: start a New chat to continue.</source>
        <translation>Nur lesbar: Beginnen Sie einen neuen Chat, um weiterzumachen.</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>&amp;Neuer Chat</translation>
    </message>
    <message>
        <source>An answer is being written in this conversation.</source>
        <translation>In dieser Unterhaltung wird gerade eine Antwort geschrieben.</translation>
    </message>
    <message>
        <source>&amp;Stop and open the other</source>
        <translation>&amp;Stoppen und die andere öffnen</translation>
    </message>
    <message>
        <source>Could not open the conversation: %1</source>
        <translation>Die Unterhaltung konnte nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>The pasted image of this conversation was not kept.</source>
        <translation>Das eingefügte Bild dieser Unterhaltung wurde nicht aufbewahrt.</translation>
    </message>
    <message>
        <source>The image %1 is no longer there.</source>
        <translation>Das Bild %1 ist nicht mehr da.</translation>
    </message>
    <message>
        <source>The conversation could not be saved: %1</source>
        <translation>Die Unterhaltung konnte nicht gespeichert werden: %1</translation>
    </message>
    <message>
        <source>Answer %1 of %2: the conversation continues from it.</source>
        <translation>Antwort %1 von %2: Die Unterhaltung geht von ihr aus weiter.</translation>
    </message>
    <message>
        <source>Wait for the answer (or Stop it) before forking.</source>
        <translation>Warten Sie die Antwort ab (oder stoppen Sie sie), bevor Sie abzweigen.</translation>
    </message>
    <message>
        <source> (fork)</source>
        <translation> (Abzweig)</translation>
    </message>
    <message>
        <source>The fork could not be saved: %1</source>
        <translation>Der Abzweig konnte nicht gespeichert werden: %1</translation>
    </message>
    <message>
        <source>Forked into “%1”; the original is unchanged.</source>
        <translation>Abgezweigt nach „%1“; das Original bleibt unverändert.</translation>
    </message>
    <message>
        <source>Edit an earlier message</source>
        <translation>Eine frühere Nachricht bearbeiten</translation>
    </message>
    <message>
        <source>Message %1 is answered again. The message after it and its answer would go.</source>
        <translation>Nachricht %1 wird erneut beantwortet. Die Nachricht danach und ihre Antwort würden wegfallen.</translation>
    </message>
    <message>
        <source>Message %1 is answered again. The %2 messages after it and their answers would go.</source>
        <translation>Nachricht %1 wird erneut beantwortet. Die %2 Nachrichten danach und ihre Antworten würden wegfallen.</translation>
    </message>
    <message>
        <source>Edit in a &amp;fork</source>
        <translation>In einem &amp;Abzweig bearbeiten</translation>
    </message>
    <message>
        <source>A new chat with the messages up to this one; this chat stays as it is</source>
        <translation>Ein neuer Chat mit den Nachrichten bis zu dieser; dieser Chat bleibt, wie er ist</translation>
    </message>
    <message>
        <source>Edit &amp;here, drop them</source>
        <translation>&amp;Hier bearbeiten, die anderen verwerfen</translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation>Exportiert nach %1.</translation>
    </message>
    <message>
        <source>Exported to %1, its image in %2 beside it (keep them together).</source>
        <translation>Exportiert nach %1, sein Bild daneben in %2 (zusammen aufbewahren).</translation>
    </message>
    <message>
        <source>Exported to %1, its %2 images in %3 beside it (keep them together).</source>
        <translation>Exportiert nach %1, seine %2 Bilder daneben in %3 (zusammen aufbewahren).</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>Export fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>%1 ·</source>
        <translation>%1 ·</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>Tok/s</translation>
    </message>
    <message>
        <source>Context length: this model holds at most %L1 tokens, so chats are limited to %L2 (Settings asks for %L3).</source>
        <translation>Kontextlänge: Dieses Modell fasst höchstens %L1 Tokens, daher sind Chats auf %L2 begrenzt (die Einstellungen verlangen %L3).</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <source>· precision %1</source>
        <translation>· Genauigkeit %1</translation>
    </message>
    <message>
        <source>Encoding the image…</source>
        <translation>Bild wird kodiert…</translation>
    </message>
    <message>
        <source>A large image</source>
        <translation>Ein großes Bild</translation>
    </message>
    <message>
        <source>Use detail mode</source>
        <translation>Detailmodus verwenden</translation>
    </message>
    <message>
        <source>Use fast mode</source>
        <translation>Schnellmodus verwenden</translation>
    </message>
    <message>
        <source>Pasted image</source>
        <translation>Eingefügtes Bild</translation>
    </message>
    <message>
        <source>Loading %1: %2…</source>
        <translation>%1 wird geladen: %2…</translation>
    </message>
    <message>
        <source>The model changed: your next message re-reads this conversation with %1 first.</source>
        <translation>Das Modell hat gewechselt: Ihre nächste Nachricht liest diese Unterhaltung zuerst erneut mit %1.</translation>
    </message>
    <message>
        <source>the demo model</source>
        <translation>dem Demomodell</translation>
    </message>
    <message>
        <source>Demo model (shapes world)</source>
        <translation>Demomodell (Formenwelt)</translation>
    </message>
    <message>
        <source>%1
%2 parameters · %3</source>
        <translation>%1
%2 Parameter · %3</translation>
    </message>
    <message>
        <source>· %1 · %2 weights</source>
        <translation>· %1 · Gewichte %2</translation>
    </message>
    <message>
        <source>%1
Precision auto: %2</source>
        <translation>%1
Genauigkeit auto: %2</translation>
    </message>
    <message>
        <source>The demo model only knows simple coloured shapes, so it will describe this picture as shapes. For photos and screenshots, download a real model.</source>
        <translation>Das Demomodell kennt nur einfache farbige Formen und beschreibt dieses Bild daher als Formen. Für Fotos und Screenshots laden Sie ein echtes Modell herunter.</translation>
    </message>
    <message>
        <source>&amp;Download a model…</source>
        <translation>Modell &amp;herunterladen…</translation>
    </message>
    <message>
        <source>Describe this image.</source>
        <translation>Describe this image.</translation>
    </message>
    <message>
        <source>Re-reading the conversation…</source>
        <translation>Unterhaltung wird erneut gelesen…</translation>
    </message>
    <message>
        <source>Read-only: a pasted image of this conversation was not kept. Start a New chat.</source>
        <translation>Nur lesbar: Ein eingefügtes Bild dieser Unterhaltung wurde nicht aufbewahrt. Beginnen Sie einen neuen Chat.</translation>
    </message>
    <message>
        <source>Read-only: the image %1 is gone or changed. Start a New chat.</source>
        <translation>Nur lesbar: Das Bild %1 ist weg oder verändert. Beginnen Sie einen neuen Chat.</translation>
    </message>
    <message>
        <source>Encoding image %1 of %2: %3%</source>
        <translation>Bild %1 von %2 wird kodiert: %3 %</translation>
    </message>
    <message>
        <source>Encoding the image: %1%</source>
        <translation>Bild wird kodiert: %1 %</translation>
    </message>
    <message>
        <source>Reading the prompt: %1 of %2 tokens</source>
        <translation>Prompt wird gelesen: %1 von %2 Tokens</translation>
    </message>
    <message>
        <source>Stopped: the image was not attached.</source>
        <translation>Gestoppt: Das Bild wurde nicht angehängt.</translation>
    </message>
    <message>
        <source>Stopped re-reading the conversation; the next message starts it again.</source>
        <translation>Erneutes Lesen der Unterhaltung gestoppt; die nächste Nachricht beginnt es wieder.</translation>
    </message>
    <message>
        <source>stopped before the answer began</source>
        <translation>gestoppt, bevor die Antwort begann</translation>
    </message>
    <message>
        <source>This chat is full: it reached its context length of %L1 tokens, so the answer stops there (it is kept). Start a new chat to go on, or raise Context length in Settings.</source>
        <translation>Dieser Chat ist voll: Er hat seine Kontextlänge von %L1 Tokens erreicht, daher stoppt die Antwort dort (sie bleibt erhalten). Beginnen Sie einen neuen Chat oder erhöhen Sie die Kontextlänge in den Einstellungen.</translation>
    </message>
    <message>
        <source>This message has %1 images: click one in the chat to see the answer&apos;s attention over it.</source>
        <translation>Diese Nachricht hat %1 Bilder: Klicken Sie im Chat auf eines, um die Aufmerksamkeit der Antwort darauf zu sehen.</translation>
    </message>
    <message>
        <source>Could not load %1: %2
Still using %3.</source>
        <translation>%1 konnte nicht geladen werden: %2
Weiterhin wird %3 verwendet.</translation>
    </message>
    <message>
        <source>Could not load the last model %1: %2
Using the demo model instead.</source>
        <translation>Das zuletzt verwendete Modell %1 konnte nicht geladen werden: %2
Stattdessen wird das Demomodell verwendet.</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>%1 konnte nicht geladen werden: %2</translation>
    </message>
    <message>
        <source>Load the &amp;demo model</source>
        <translation>&amp;Demomodell laden</translation>
    </message>
    <message>
        <source>This chat is full: %1. Start a new chat, or raise Context length in Settings.</source>
        <translation>Dieser Chat ist voll: %1. Beginnen Sie einen neuen Chat oder erhöhen Sie die Kontextlänge in den Einstellungen.</translation>
    </message>
    <message>
        <source>This chat is full: %1. Your message is back in the box: start a new chat to send it there, or raise Context length in Settings.</source>
        <translation>Dieser Chat ist voll: %1. Ihre Nachricht steht wieder im Eingabefeld: Beginnen Sie einen neuen Chat, um sie dort zu senden, oder erhöhen Sie die Kontextlänge in den Einstellungen.</translation>
    </message>
    <message>
        <source>Could not switch answers: %1</source>
        <translation>Antwort konnte nicht gewechselt werden: %1</translation>
    </message>
    <message>
        <source>Local server: %1</source>
        <translation>Lokaler Server: %1</translation>
    </message>
    <message>
        <source>Server &amp;panel…</source>
        <translation>Server-&amp;Fenster…</translation>
    </message>
    <message>
        <source>Read-only: %1</source>
        <translation>Nur lesbar: %1</translation>
    </message>
    <message>
        <source>&amp;Images in an answered chat</source>
        <translation>B&amp;ilder in einem beantworteten Chat</translation>
    </message>
    <message>
        <source>&amp;Ask each time</source>
        <translation>Jedes Mal &amp;fragen</translation>
    </message>
    <message>
        <source>Start a &amp;new chat</source>
        <translation>Einen &amp;neuen Chat beginnen</translation>
    </message>
    <message>
        <source>Add to &amp;this chat</source>
        <translation>Zu &amp;diesem Chat hinzufügen</translation>
    </message>
    <message>
        <source>This chat already has an answer</source>
        <translation>Dieser Chat hat schon eine Antwort</translation>
    </message>
    <message>
        <source>Start a new chat with this image, or add it to this conversation?
(A model reading a second picture in the same chat may mix the two up.)</source>
        <translation>Einen neuen Chat mit diesem Bild beginnen oder es zu dieser Unterhaltung hinzufügen?
(Ein Modell, das ein zweites Bild im selben Chat liest, kann die beiden verwechseln.)</translation>
    </message>
    <message>
        <source>&amp;Add to this chat</source>
        <translation>Zu diesem Chat &amp;hinzufügen</translation>
    </message>
    <message>
        <source>Do this every time (Chat ▸ Images in an answered chat)</source>
        <translation>Jedes Mal so verfahren (Chat ▸ Bilder in einem beantworteten Chat)</translation>
    </message>
    <message>
        <source>This answer kept no attention maps (no image, or capture was off).</source>
        <translation>Diese Antwort hat keine Aufmerksamkeitskarten behalten (kein Bild, oder die Erfassung war aus).</translation>
    </message>
    <message>
        <source>The image this answer looked at is no longer there.</source>
        <translation>Das Bild, auf das diese Antwort geschaut hat, ist nicht mehr da.</translation>
    </message>
    <message>
        <source>The preset&apos;s system prompt applies from your next message (the chat is read again with it).</source>
        <translation>Der Systemprompt der Vorlage gilt ab Ihrer nächsten Nachricht (der Chat wird damit erneut gelesen).</translation>
    </message>
    <message>
        <source>Open &amp;model folder…</source>
        <translation>&amp;Modellordner öffnen…</translation>
    </message>
    <message>
        <source>Open a Qwen3.5 model folder</source>
        <translation>Einen Qwen3.5-Modellordner öffnen</translation>
    </message>
    <message>
        <source>Do&amp;wnload model…</source>
        <translation>Modell &amp;herunterladen…</translation>
    </message>
    <message>
        <source>Load the d&amp;emo model</source>
        <translation>D&amp;emomodell laden</translation>
    </message>
    <message>
        <source>Mana&amp;ge models…</source>
        <translation>Modelle &amp;verwalten…</translation>
    </message>
    <message>
        <source> and </source>
        <translation> und </translation>
    </message>
    <message>
        <source>The new %1 setting takes effect when a model is next loaded.</source>
        <translation>Die neue Einstellung %1 wirkt, wenn das nächste Mal ein Modell geladen wird.</translation>
    </message>
    <message>
        <source>The new %1 settings take effect when a model is next loaded.</source>
        <translation>Die neuen Einstellungen %1 wirken, wenn das nächste Mal ein Modell geladen wird.</translation>
    </message>
    <message>
        <source>&amp;Reload now</source>
        <translation>Jetzt &amp;neu laden</translation>
    </message>
    <message>
        <source>The new system prompt takes effect in a new chat.</source>
        <translation>Der neue Systemprompt wirkt in einem neuen Chat.</translation>
    </message>
    <message>
        <source>Caption a &amp;folder…</source>
        <translation>&amp;Ordner beschriften…</translation>
    </message>
    <message>
        <source>Open f&amp;older…</source>
        <translation>O&amp;rdner öffnen…</translation>
    </message>
    <message>
        <source>&amp;Local server</source>
        <translation>&amp;Lokaler Server</translation>
    </message>
    <message>
        <source>Serve the loaded model to this computer&apos;s programs through an OpenAI-compatible API</source>
        <translation>Das geladene Modell den Programmen dieses Computers über eine OpenAI-kompatible API bereitstellen</translation>
    </message>
    <message>
        <source>Local ser&amp;ver panel…</source>
        <translation>Fen&amp;ster des lokalen Servers…</translation>
    </message>
    <message>
        <source>Could not start: %1</source>
        <translation>Start fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>· Serving at &lt;a href=&quot;%1/v1/models&quot;&gt;%1&lt;/a&gt;</source>
        <translation>· Bereit unter &lt;a href=&quot;%1/v1/models&quot;&gt;%1&lt;/a&gt;</translation>
    </message>
    <message>
        <source>OpenAI-compatible API: %1/v1/chat/completions</source>
        <translation>OpenAI-kompatible API: %1/v1/chat/completions</translation>
    </message>
    <message>
        <source>Waiting for the local server to finish a request…</source>
        <translation>Warte, bis der lokale Server eine Anfrage beendet hat…</translation>
    </message>
    <message>
        <source>Load a model first: captioning a folder needs one.</source>
        <translation>Laden Sie zuerst ein Modell: Das Beschriften eines Ordners braucht eines.</translation>
    </message>
    <message>
        <source>Demo scenes are the demo model&apos;s world; %1 may describe them less well.</source>
        <translation>Demoszenen sind die Welt des Demomodells; %1 beschreibt sie vielleicht weniger gut.</translation>
    </message>
    <message>
        <source>No demo scenes to show: %1</source>
        <translation>Keine Demoszenen zum Zeigen: %1</translation>
    </message>
    <message>
        <source>The same answer again: greedy decoding always picks the likeliest words. For a different one, choose a preset that samples (e.g. Creative) or sampling in Settings.</source>
        <translation>Dieselbe Antwort noch einmal: Greedy-Dekodierung wählt immer die wahrscheinlichsten Wörter. Für eine andere wählen Sie eine Vorlage mit Sampling (z. B. Creative) oder Sampling in den Einstellungen.</translation>
    </message>
</context>
<context>
    <name>glance::ui::ModelDownloader</name>
    <message>
        <source>Cannot create the folder %1. Check that the disk is writable, or choose another models folder.</source>
        <translation>Der Ordner %1 kann nicht angelegt werden. Prüfen Sie, ob das Laufwerk beschreibbar ist, oder wählen Sie einen anderen Modellordner.</translation>
    </message>
    <message>
        <source>Cannot write %1: %2. Free some disk space or choose another models folder.</source>
        <translation>%1 kann nicht geschrieben werden: %2. Schaffen Sie Platz auf dem Laufwerk oder wählen Sie einen anderen Modellordner.</translation>
    </message>
    <message>
        <source>The server resumed %1 at the wrong offset (%2). The partial file was deleted; press Download again to start it over.</source>
        <translation>Der Server hat %1 am falschen Offset fortgesetzt (%2). Die Teildatei wurde gelöscht; klicken Sie erneut auf Herunterladen, um von vorn zu beginnen.</translation>
    </message>
    <message>
        <source>Cannot write %1: %2. Free some disk space and press Resume to continue.</source>
        <translation>%1 kann nicht geschrieben werden: %2. Schaffen Sie Platz auf dem Laufwerk und klicken Sie auf Fortsetzen.</translation>
    </message>
    <message>
        <source>Too many redirects while downloading %1 from %2.</source>
        <translation>Zu viele Weiterleitungen beim Herunterladen von %1 von %2.</translation>
    </message>
    <message>
        <source>%1 was not found at %2 (HTTP 404). Check that the repository &apos;%3&apos; exists and holds this file, or pick another model.</source>
        <translation>%1 wurde unter %2 nicht gefunden (HTTP 404). Prüfen Sie, ob das Repository &apos;%3&apos; existiert und diese Datei enthält, oder wählen Sie ein anderes Modell.</translation>
    </message>
    <message>
        <source>Access to %1 was refused (HTTP %2). The repository &apos;%3&apos; may be gated: accept its license on huggingface.co, or pick another model.</source>
        <translation>Der Zugriff auf %1 wurde verweigert (HTTP %2). Das Repository &apos;%3&apos; ist vielleicht zugangsbeschränkt: Akzeptieren Sie seine Lizenz auf huggingface.co oder wählen Sie ein anderes Modell.</translation>
    </message>
    <message>
        <source>The server answered HTTP %1 for %2 (%3). Try again later.</source>
        <translation>Der Server antwortete mit HTTP %1 für %2 (%3). Versuchen Sie es später erneut.</translation>
    </message>
    <message>
        <source>Could not download %1 (%2). Check the network connection and try again.</source>
        <translation>%1 konnte nicht heruntergeladen werden (%2). Prüfen Sie die Netzwerkverbindung und versuchen Sie es erneut.</translation>
    </message>
    <message>
        <source>connection closed early</source>
        <translation>Verbindung vorzeitig geschlossen</translation>
    </message>
    <message>
        <source>Downloading %1 was interrupted (%2) after %3%4. Check the network connection and press Resume to continue.</source>
        <translation>Der Download von %1 wurde unterbrochen (%2) nach %3%4. Prüfen Sie die Netzwerkverbindung und klicken Sie auf Fortsetzen.</translation>
    </message>
    <message>
        <source> of %1</source>
        <translation> von %1</translation>
    </message>
    <message>
        <source>%1 has %2 bytes but should have %3. The partial file was deleted; press Download again to fetch it anew.</source>
        <translation>%1 hat %2 Bytes, sollte aber %3 haben. Die Teildatei wurde gelöscht; klicken Sie erneut auf Herunterladen, um sie neu zu holen.</translation>
    </message>
    <message>
        <source>%1 failed its checksum (sha256 %2, expected %3): the download was corrupted. The partial file was deleted; press Download again to fetch it anew.</source>
        <translation>%1 hat die Prüfsumme nicht bestanden (sha256 %2, erwartet %3): Der Download war beschädigt. Die Teildatei wurde gelöscht; klicken Sie erneut auf Herunterladen, um sie neu zu holen.</translation>
    </message>
    <message>
        <source>Cannot rename %1 to %2. Check the folder&apos;s permissions.</source>
        <translation>%1 kann nicht in %2 umbenannt werden. Prüfen Sie die Berechtigungen des Ordners.</translation>
    </message>
    <message>
        <source>Cannot read %1: %2.</source>
        <translation>%1 kann nicht gelesen werden: %2.</translation>
    </message>
    <message>
        <source>%1 names an unexpected shard &apos;%2&apos;; this does not look like a Hugging Face checkpoint.</source>
        <translation>%1 nennt einen unerwarteten Teil &apos;%2&apos;; das sieht nicht nach einem Hugging-Face-Checkpoint aus.</translation>
    </message>
    <message>
        <source>%1 has no weight_map; the repository&apos;s weights cannot be found.</source>
        <translation>%1 hat keine weight_map; die Gewichte des Repositorys sind nicht zu finden.</translation>
    </message>
</context>
<context>
    <name>glance::ui::ModelInfoDialog</name>
    <message>
        <source>Model info</source>
        <translation>Modellinfo</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>Kein Modell geladen.</translation>
    </message>
</context>
<context>
    <name>glance::ui::ModelManagerDialog</name>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Size on disk</source>
        <translation>Größe auf dem Laufwerk</translation>
    </message>
    <message>
        <source>Weight caches</source>
        <translation>Gewichts-Caches</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>Ort</translation>
    </message>
    <message>
        <source>&amp;Load</source>
        <translation>&amp;Laden</translation>
    </message>
    <message>
        <source>&amp;Reveal folder</source>
        <translation>Ordner &amp;zeigen</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>Lö&amp;schen…</translation>
    </message>
    <message>
        <source>Clear &amp;caches…</source>
        <translation>&amp;Caches leeren…</translation>
    </message>
    <message>
        <source>Do&amp;wnload…</source>
        <translation>&amp;Herunterladen…</translation>
    </message>
    <message>
        <source>Delete from disk</source>
        <translation>Vom Laufwerk löschen</translation>
    </message>
    <message>
        <source> (loaded)</source>
        <translation> (geladen)</translation>
    </message>
    <message>
        <source>gone</source>
        <translation>weg</translation>
    </message>
    <message>
        <source>Downloads go to %1 (%2 free). Weight caches: %3.</source>
        <translation>Downloads gehen nach %1 (%2 frei). Gewichts-Caches: %3.</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Only models Glance downloaded are deleted here</source>
        <translation>Hier werden nur Modelle gelöscht, die Glance heruntergeladen hat</translation>
    </message>
    <message>
        <source>The prepared weights kept to load faster; made again at the next load</source>
        <translation>Die vorbereiteten Gewichte, die das Laden beschleunigen; beim nächsten Laden neu erzeugt</translation>
    </message>
    <message>
        <source>%1 is loaded; load another model before deleting it.</source>
        <translation>%1 ist geladen; laden Sie ein anderes Modell, bevor Sie es löschen.</translation>
    </message>
    <message>
        <source>Delete %1?

This frees %2: the folder %3</source>
        <translation>%1 löschen?

Das gibt %2 frei: den Ordner %3</translation>
    </message>
    <message>
        <source>.</source>
        <translation>.</translation>
    </message>
    <message>
        <source> and its weight caches (%1).</source>
        <translation> und seine Gewichts-Caches (%1).</translation>
    </message>
    <message>
        <source>Delete the weight caches of %1 (%2: %3)?

The model stays; its next load at those precisions prepares the weights again, which takes longer.</source>
        <translation>Die Gewichts-Caches von %1 löschen (%2: %3)?

Das Modell bleibt; sein nächstes Laden mit diesen Genauigkeiten bereitet die Gewichte erneut vor, was länger dauert.</translation>
    </message>
    <message>
        <source>Re&amp;load</source>
        <translation>Neu &amp;laden</translation>
    </message>
</context>
<context>
    <name>glance::ui::ModelSwitchButton</name>
    <message>
        <source>Switch model</source>
        <translation>Modell wechseln</translation>
    </message>
    <message>
        <source>Manage models…</source>
        <translation>Modelle verwalten…</translation>
    </message>
</context>
<context>
    <name>glance::ui::NoticeBar</name>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Close this notice</source>
        <translation>Diesen Hinweis schließen</translation>
    </message>
    <message>
        <source>Close notice</source>
        <translation>Hinweis schließen</translation>
    </message>
</context>
<context>
    <name>glance::ui::RemoteEndpointFields</name>
    <message>
        <source>This computer (the model loaded here)</source>
        <translation>Dieser Computer (das hier geladene Modell)</translation>
    </message>
    <message>
        <source>An OpenAI-compatible endpoint</source>
        <translation>Ein OpenAI-kompatibler Endpunkt</translation>
    </message>
    <message>
        <source>Another machine&apos;s glance-cli serve, llama.cpp&apos;s server, LM Studio, vLLM… (glance-cli caption DIR --endpoint URL)</source>
        <translation>glance-cli serve auf einem anderen Rechner, der Server von llama.cpp, LM Studio, vLLM… (glance-cli caption DIR --endpoint URL)</translation>
    </message>
    <message>
        <source>&amp;Run on:</source>
        <translation>&amp;Ausführen auf:</translation>
    </message>
    <message>
        <source>http://192.168.1.5:8080 (with or without /v1)</source>
        <translation>http://192.168.1.5:8080 (mit oder ohne /v1)</translation>
    </message>
    <message>
        <source>Endpoint &amp;URL:</source>
        <translation>Endpunkt-&amp;URL:</translation>
    </message>
    <message>
        <source>from GLANCE_API_KEY</source>
        <translation>aus GLANCE_API_KEY</translation>
    </message>
    <message>
        <source>none (or set GLANCE_API_KEY)</source>
        <translation>keiner (oder GLANCE_API_KEY setzen)</translation>
    </message>
    <message>
        <source>Remem&amp;ber</source>
        <translation>&amp;Merken</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API-&amp;Schlüssel:</translation>
    </message>
    <message>
        <source>The key is sent as Authorization: Bearer and kept in memory only; ticking Remember stores it in plain text in the settings file. Empty: GLANCE_API_KEY.</source>
        <translation>Der Schlüssel wird als Authorization: Bearer gesendet und nur im Speicher gehalten; mit Merken wird er im Klartext in der Einstellungsdatei gespeichert. Leer: GLANCE_API_KEY.</translation>
    </message>
    <message>
        <source>the server&apos;s first model</source>
        <translation>das erste Modell des Servers</translation>
    </message>
    <message>
        <source>Remote &amp;model:</source>
        <translation>Entferntes &amp;Modell:</translation>
    </message>
    <message>
        <source>Requests in flight at once (the server answers several together)</source>
        <translation>Gleichzeitige Anfragen (der Server beantwortet mehrere zusammen)</translation>
    </message>
    <message>
        <source>Concurrenc&amp;y:</source>
        <translation>&amp;Parallelität:</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>How long one request waits for its answer; a server that never answers is tried 6 times, then the run stops</source>
        <translation>Wie lange eine Anfrage auf ihre Antwort wartet; ein Server, der nie antwortet, wird 6-mal versucht, dann stoppt der Lauf</translation>
    </message>
    <message>
        <source>Time&amp;out:</source>
        <translation>Zeit&amp;limit:</translation>
    </message>
    <message>
        <source>Endpoint URL: give the server&apos;s address, e.g. http://192.168.1.5:8080</source>
        <translation>Endpunkt-URL: Geben Sie die Adresse des Servers an, z. B. http://192.168.1.5:8080</translation>
    </message>
    <message>
        <source>Endpoint URL: %1</source>
        <translation>Endpunkt-URL: %1</translation>
    </message>
    <message>
        <source>Timeout: give a number of seconds above 0</source>
        <translation>Zeitlimit: Geben Sie eine Zahl von Sekunden über 0 an</translation>
    </message>
</context>
<context>
    <name>glance::ui::ServerPanel</name>
    <message>
        <source>Local server</source>
        <translation>Lokaler Server</translation>
    </message>
    <message>
        <source>Settings (change them while the server is stopped)</source>
        <translation>Einstellungen (ändern, während der Server gestoppt ist)</translation>
    </message>
    <message>
        <source>any free port</source>
        <translation>beliebiger freier Port</translation>
    </message>
    <message>
        <source>A port in use falls back to a free one; the state line says which.</source>
        <translation>Ist ein Port belegt, wird ein freier genommen; die Statuszeile nennt ihn.</translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation>&amp;Port:</translation>
    </message>
    <message>
        <source>127.0.0.1: this computer&apos;s programs only. 0.0.0.0: every network this computer is on.</source>
        <translation>127.0.0.1: nur Programme dieses Computers. 0.0.0.0: jedes Netzwerk, in dem dieser Computer ist.</translation>
    </message>
    <message>
        <source>&amp;Bind address:</source>
        <translation>&amp;Bind-Adresse:</translation>
    </message>
    <message>
        <source>none: any program that can reach the server may use it</source>
        <translation>keiner: jedes Programm mit Zugriff darf ihn nutzen</translation>
    </message>
    <message>
        <source>S&amp;how</source>
        <translation>&amp;Zeigen</translation>
    </message>
    <message>
        <source>Show the API key</source>
        <translation>API-Schlüssel zeigen</translation>
    </message>
    <message>
        <source>&amp;Generate</source>
        <translation>&amp;Erzeugen</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Kopieren</translation>
    </message>
    <message>
        <source>Copy the API key</source>
        <translation>API-Schlüssel kopieren</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API-Sc&amp;hlüssel:</translation>
    </message>
    <message>
        <source>https://app.example, … or * (pages from this computer always may)</source>
        <translation>https://app.example, … oder * (Seiten von diesem Computer dürfen immer)</translation>
    </message>
    <message>
        <source>Web pages from other sites that may use the server and read its answers, separated by commas; any other site&apos;s page is refused (403).</source>
        <translation>Webseiten anderer Sites, die den Server nutzen und seine Antworten lesen dürfen, durch Kommas getrennt; die Seite jeder anderen Site wird abgewiesen (403).</translation>
    </message>
    <message>
        <source>Allowed &amp;origins:</source>
        <translation>Erlaubte &amp;Origins:</translation>
    </message>
    <message>
        <source>200 (client left)</source>
        <translation>200 (Client weg)</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 in · %2 out</source>
        <translation>%1 ein · %2 aus</translation>
    </message>
    <message>
        <source>Request log</source>
        <translation>Anfrageprotokoll</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>&amp;Leeren</translation>
    </message>
    <message>
        <source>&amp;Requests</source>
        <translation>&amp;Anfragen</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>H&amp;ide</source>
        <translation>&amp;Verbergen</translation>
    </message>
    <message>
        <source>Hide the API key</source>
        <translation>API-Schlüssel verbergen</translation>
    </message>
    <message>
        <source>Filled in with this server&apos;s address, model and key.</source>
        <translation>Mit Adresse, Modell und Schlüssel dieses Servers ausgefüllt.</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Allowed origins: %1</source>
        <translation>Erlaubte Origins: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Running&lt;/b&gt; at &lt;a href=&quot;%1/v1/models&quot;&gt;%1&lt;/a&gt; · model %2</source>
        <translation>&lt;b&gt;Läuft&lt;/b&gt; unter &lt;a href=&quot;%1/v1/models&quot;&gt;%1&lt;/a&gt; · Modell %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Starting…&lt;/b&gt;</source>
        <translation>&lt;b&gt;Startet…&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Stopped&lt;/b&gt;</source>
        <translation>&lt;b&gt;Gestoppt&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&amp;Stop server</source>
        <translation>Server &amp;stoppen</translation>
    </message>
    <message>
        <source>&amp;Start server</source>
        <translation>Server &amp;starten</translation>
    </message>
    <message>
        <source>Other machines on your networks can reach the model, and without an API key anyone there may use it. Generate a key.</source>
        <translation>Andere Rechner in Ihren Netzwerken können das Modell erreichen, und ohne API-Schlüssel darf es dort jeder nutzen. Erzeugen Sie einen Schlüssel.</translation>
    </message>
    <message>
        <source>Other machines on your networks can reach the model; they need the API key.</source>
        <translation>Andere Rechner in Ihren Netzwerken können das Modell erreichen; sie brauchen den API-Schlüssel.</translation>
    </message>
    <message>
        <source>No requests yet.</source>
        <translation>Noch keine Anfragen.</translation>
    </message>
    <message numerus="yes">
        <source>%n request(s) (the last %1 are kept)</source>
        <translation>
            <numerusform>%n Anfrage (die letzten %1 werden behalten)</numerusform>
            <numerusform>%n Anfragen (die letzten %1 werden behalten)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>glance::ui::ServerRequestLog</name>
    <message>
        <source> (client left)</source>
        <translation> (Client weg)</translation>
    </message>
    <message>
        <source> (max tokens)</source>
        <translation> (max. Tokens)</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 in · %2 out</source>
        <translation>%1 ein · %2 aus</translation>
    </message>
    <message>
        <source>Refused: no API key or the wrong one.</source>
        <translation>Abgewiesen: kein oder falscher API-Schlüssel.</translation>
    </message>
    <message>
        <source>Refused: a web page from a site that is not allowed, or a Host that is not this machine.</source>
        <translation>Abgewiesen: eine Webseite einer nicht erlaubten Site oder ein Host, der nicht dieser Rechner ist.</translation>
    </message>
    <message>
        <source>Refused: too many requests waiting.</source>
        <translation>Abgewiesen: zu viele wartende Anfragen.</translation>
    </message>
    <message>
        <source>Finish reason: %1</source>
        <translation>Abschlussgrund: %1</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Methode</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>Pfad</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
</context>
<context>
    <name>glance::ui::SettingsDialog</name>
    <message>
        <source>auto</source>
        <translation>auto</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>One a line; \n is a line break, \t a tab, \\ a backslash. Empty: none.</source>
        <translation>Eine pro Zeile; \n ist ein Zeilenumbruch, \t ein Tabulator, \\ ein Backslash. Leer: keine.</translation>
    </message>
    <message>
        <source>NPU ready: auto runs the model on it.</source>
        <translation>NPU bereit: auto führt das Modell darauf aus.</translation>
    </message>
    <message>
        <source>No NPU on this computer: auto runs the model on the CPU.</source>
        <translation>Keine NPU in diesem Computer: auto führt das Modell auf der CPU aus.</translation>
    </message>
    <message>
        <source>An NPU is here but cannot be used (%1): auto runs the model on the CPU.</source>
        <translation>Eine NPU ist da, aber nicht nutzbar (%1): auto führt das Modell auf der CPU aus.</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>bundled demo model</source>
        <translation>mitgeliefertes Demomodell</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>Modellordner</translation>
    </message>
    <message>
        <source>&amp;Details</source>
        <translation>&amp;Details</translation>
    </message>
    <message>
        <source>NPU checks</source>
        <translation>NPU-Prüfungen</translation>
    </message>
    <message>
        <source>Used only when Sampling is custom (now: %1).</source>
        <translation>Wird nur genutzt, wenn Sampling custom ist (jetzt: %1).</translation>
    </message>
    <message>
        <source>Now on the CPU.</source>
        <translation>Jetzt auf der CPU.</translation>
    </message>
    <message>
        <source>Now: %1</source>
        <translation>Jetzt: %1</translation>
    </message>
    <message>
        <source>Now: %1 — %2</source>
        <translation>Jetzt: %1 — %2</translation>
    </message>
    <message>
        <source>new each turn</source>
        <translation>bei jeder Antwort neu</translation>
    </message>
</context>
<context>
    <name>glance::ui::SettingsFile</name>
    <message>
        <source>Settings taken over from %1 into %2</source>
        <translation>Einstellungen von %1 nach %2 übernommen</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>keine reguläre Datei</translation>
    </message>
    <message>
        <source>larger than %1 bytes</source>
        <translation>größer als %1 Bytes</translation>
    </message>
    <message>
        <source>Could not read the settings file %1 (%2); it was set aside as %3 and the defaults are used</source>
        <translation>Konnte die Einstellungsdatei %1 nicht lesen (%2); sie wurde als %3 beiseitegelegt, es gelten die Standardwerte</translation>
    </message>
    <message>
        <source>Could not read the settings file %1 (%2); the defaults are used</source>
        <translation>Konnte die Einstellungsdatei %1 nicht lesen (%2); es gelten die Standardwerte</translation>
    </message>
    <message>
        <source>Settings not saved: %1 They are kept while Glance runs and saved again when possible.</source>
        <translation>Einstellungen nicht gespeichert: %1 Sie bleiben erhalten, solange Glance läuft, und werden wieder gespeichert, sobald es geht.</translation>
    </message>
</context>
<context>
    <name>glance::ui::ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>Wo</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>Tasten</translation>
    </message>
</context>
<context>
    <name>glance::ui::TimingPanel</name>
    <message>
        <source>No turns yet.</source>
        <translation>Noch keine Runden.</translation>
    </message>
    <message>
        <source>Time per turn by stage (s)</source>
        <translation>Zeit je Runde nach Phase (s)</translation>
    </message>
    <message>
        <source>Per-token latency, latest turn (ms)</source>
        <translation>Latenz je Token, letzte Runde (ms)</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>CSV exportieren…</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <source>%1: %2 in %3 calls</source>
        <translation>%1: %2 in %3 Aufrufen</translation>
    </message>
    <message>
        <source>On the NPU path, latest turn:</source>
        <translation>Auf dem NPU-Pfad, letzte Runde:</translation>
    </message>
    <message>
        <source>%1: %2 = NPU %3 · transfer %4 · host %5</source>
        <translation>%1: %2 = NPU %3 · Transfer %4 · Host %5</translation>
    </message>
    <message>
        <source>%1 (image %2)</source>
        <translation>%1 (Bild %2)</translation>
    </message>
    <message>
        <source>Turn %1: TTFT %2 · total %3 · prompt %4 tok (%5 image) at %6 · %7 tok generated at %8%9 · %10</source>
        <translation>Runde %1: TTFT %2 · gesamt %3 · Prompt %4 Tok (%5 Bild) mit %6 · %7 Tok generiert mit %8%9 · %10</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>Tok/s</translation>
    </message>
    <message>
        <source>Export timing</source>
        <translation>Zeitmessung exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message>
        <source>preprocess</source>
        <translation>Vorbereitung</translation>
    </message>
    <message>
        <source>vision</source>
        <translation>Bild</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>sample</source>
        <translation>Sampling</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>Ausgabe</translation>
    </message>
    <message>
        <source>re-read</source>
        <translation>Neu eingelesen</translation>
    </message>
    <message>
        <source>re-read the chat first in %1</source>
        <translation>Chat zuerst in %1 neu eingelesen</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Private, inspectable image captioning and chat with Qwen3.5</source>
        <translation>Private, nachvollziehbare Bildbeschreibung und Chat mit Qwen3.5</translation>
    </message>
    <message>
        <source>Model folder to load (default: the last one used, else the demo).</source>
        <translation>Zu ladender Modellordner (Standard: der zuletzt verwendete, sonst das Demo).</translation>
    </message>
    <message>
        <source>dir</source>
        <translation>ordner</translation>
    </message>
    <message>
        <source>Image to attach and describe at start.</source>
        <translation>Bild, das beim Start angehängt und beschrieben wird.</translation>
    </message>
    <message>
        <source>path</source>
        <translation>pfad</translation>
    </message>
</context>
</TS>

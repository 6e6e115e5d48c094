"""The post-mortem scenarios (scenarios/*.json) are written by this script,
so their analysis scripts and tables stay readable as code. Run it after a
change: python3 scenarios.py [OUTPUT_DIR] (default: scenarios/ beside it).
TestScenariosAreGenerated fails when the JSON and this script disagree."""
import json, os, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios")
RQ = "$RQ"

DESIGN = """# Design: Off-target cleavage from guide-site features
- rq: RQ-001

Split by guide throughout, so no guide is in training and test at once.

## Planned steps

### Step 1: GUIDE-seq table
- inputs: none
- outputs: 02-data/raw/guideseq.csv, 02-data/raw/changeseq.csv
- gates: G0

### Step 2: Extract features
- inputs: 02-data/raw/guideseq.csv
- outputs: 02-data/processed/features.csv
- gates: DQ1, DD0

### Step 3: Train and calibrate on guide-held-out folds
- inputs: 02-data/processed/features.csv
- outputs: 04-results/metrics.json, 04-results/calibration.json, 04-results/FINDINGS.json
- gates: DQ2, DQ3

## Deviations

None yet.
"""

DICT = """# Data dictionary: RQ-001

## raw/guideseq.csv

GUIDE-seq read counts per candidate site (downloaded by the user).

| column | type | unit | description |
|---|---|---|---|
| guide_id | string | - | Guide RNA identifier |
| site_id | string | - | Candidate site identifier |
| mismatches | integer | count | Mismatches between guide and site |
| gc | float | fraction | GC fraction of the protospacer |
| reads | integer | count | GUIDE-seq reads at the site |

## processed/features.csv

One row per candidate site, made by 03-analysis/extract_features.py.

| column | type | unit | description |
|---|---|---|---|
| guide_id | string | - | Guide RNA identifier |
| site_id | string | - | Candidate site identifier |
| mismatch_count | integer | count | Mismatches between guide and site |
| gc_content | float | fraction | GC fraction of the protospacer |
| seed_mismatches | integer | count | Mismatches in the 12-nt seed |
| cfd_score | float | probability | CFD score of the guide-site pair, 0 to 1 |
| cleaved | boolean | - | Label: one read or more at the site |
"""

def raw_table():
    import random
    r = random.Random(7)
    lines = ["guide_id,site_id,mismatches,gc,reads"]
    for g in range(12):
        for s in range(25):
            mm = r.randint(0, 6)
            gc = round(r.uniform(0.3, 0.7), 3)
            p = max(0.05, 0.85 - 0.15 * mm)
            reads = r.randint(1, 40) if r.random() < p else 0
            lines.append(f"G{g:02d},G{g:02d}_S{s:03d},{mm},{gc},{reads}")
    return "\n".join(lines) + "\n"

EXTRACT = """import csv, os, random
here = os.path.dirname(os.path.abspath(__file__))
rq = os.path.dirname(here)
rng = random.Random(11)
rows = list(csv.DictReader(open(os.path.join(rq, "02-data/raw/guideseq.csv"))))
os.makedirs(os.path.join(rq, "02-data/processed"), exist_ok=True)
with open(os.path.join(rq, "02-data/processed/features.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["guide_id", "site_id", "mismatch_count", "gc_content", "seed_mismatches", "cfd_score", "cleaved"%(EXTRA_HEAD)s])
    for r in rows:
        mm = int(r["mismatches"])
        seed = min(mm, rng.randint(0, 3))
        cleaved = 1 if int(r["reads"]) > 0 else 0
        cfd = %(CFD)s
        w.writerow([r["guide_id"], r["site_id"], mm, r["gc"], %(SEED)s, cfd, cleaved%(EXTRA_ROW)s])
print("wrote", len(rows), "rows")
"""

CFD_FULL = "round(0.9 ** mm * (0.5 + 0.5 * rng.random()), 4)"
def extract(extra_head="", extra_row="", seed="seed", cfd=CFD_FULL):
    return EXTRACT % {"EXTRA_HEAD": extra_head, "EXTRA_ROW": extra_row, "SEED": seed, "CFD": cfd}

TRAIN = """import csv, json, os
here = os.path.dirname(os.path.abspath(__file__))
rq = os.path.dirname(here)
rows = list(csv.DictReader(open(os.path.join(rq, "02-data/processed/features.csv"))))
guides = sorted({r["guide_id"] for r in rows})
%(BODY)s
os.makedirs(os.path.join(rq, "04-results"), exist_ok=True)
json.dump(metrics, open(os.path.join(rq, "04-results/metrics.json"), "w"), indent=1)
json.dump(calibration, open(os.path.join(rq, "04-results/calibration.json"), "w"), indent=1)
json.dump(findings, open(os.path.join(rq, "04-results/FINDINGS.json"), "w"), indent=1)
print("auc", metrics["auc"])
"""

CLEAN_BODY = """metrics = {"task": "classification", "auc": 0.81, "baseline": {"auc": 0.5},
           "feature_importance": {"mismatch_count": 0.41, "seed_mismatches": 0.35, "gc_content": 0.24},
           "folds": [0.79, 0.83, 0.80, 0.82], "n_groups_total": len(guides), "n_groups_used": len(guides),
           "groups_per_fold": [3, 3, 3, 3]}
calibration = {"nominal_coverage": 0.9, "empirical_coverage": 0.88, "n": len(rows)}
findings = {"F1": {"auc": 0.81, "n_sites": len(rows), "n_guides": len(guides),
                  "empirical_coverage": 0.88, "nominal_coverage": 0.9}}"""

FINDINGS_MD = """# Findings: RQ-001
<!-- source: FINDINGS.json -->

## F1: mismatches predict cleavage

A model on mismatch count, seed mismatches and GC content separates cleaved from
uncleaved sites with AUC 0.81 on guide-held-out folds (n = 300 sites from 12 guides).

## Alternative explanations

Sites with many mismatches may simply be under-sequenced; read depth was not modelled.
"""

def step(tool, expect=None, fails=False, **inp):
    s = {"tool": tool, "input": inp}
    if fails:
        s["fails"] = True
    if expect:
        s["expect"] = expect
    return s

def lit():
    return {"tool": "WebSearch", "input": {"query": "CRISPR off-target cleavage prediction GUIDE-seq features"},
            "response": {"query": "CRISPR off-target cleavage prediction GUIDE-seq features",
                         "results": [{"tool_use_id": "srvtoolu_01", "content": [
                             {"title": "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases",
                              "url": "https://www.nature.com/articles/nbt.3117"}]}],
                         "durationSeconds": 1.4}}

def base_files():
    return {f"{RQ}/02-data/raw/guideseq.csv": raw_table(),
            "mirror/changeseq.csv": "guide_id,site_id,mismatches,reads\nG00,G00_S000,2,14\nG01,G01_S001,4,0\n",
            ".vibe-science/domain-config.json": json.dumps({"domain": "crispr-off-target", "dq1": {"label_column": "cleaved"}}, indent=1) + "\n"}

def clean_steps(extract_src=None, train_body=CLEAN_BODY, findings_md=FINDINGS_MD, expects=None):
    expects = expects or {}
    steps = [
        lit(),
        step("Read", file_path=".vibe-science/STATE.md"),
        step("Edit", file_path=".vibe-science/STATE.md", old_string="phase: brainstorm", new_string="phase: analysis"),
        step("Write", file_path=f"{RQ}/DESIGN.md", content=DESIGN),
        step("Write", file_path=f"{RQ}/02-data/DATA-DICTIONARY.md", content=DICT),
        step("Write", file_path=f"{RQ}/03-analysis/extract_features.py", content=extract_src or extract()),
        step("Bash", command=f"python3 {RQ}/03-analysis/extract_features.py"),
        step("Write", file_path=f"{RQ}/03-analysis/train.py", content=TRAIN % {"BODY": train_body}),
        step("Bash", command=f"python3 {RQ}/03-analysis/train.py"),
        step("Write", file_path=f"{RQ}/04-results/FINDINGS.md", content=findings_md),
        step("Bash", command=f"echo 'Conformal sets reach an empirical coverage of 0.88 at a nominal 0.9 (n = 300).' >> {RQ}/04-results/FINDINGS.md"),
        # The second planned dataset is downloaded into raw data, as the skill
        # says: the user is asked, then the download runs (issue 13 item 4).
        step("Bash", {"pre": "ask", "says": ["download"]},
             command=f"curl -sS -o {RQ}/02-data/raw/changeseq.csv file://$PROJECT/mirror/changeseq.csv"),
    ]
    for i, e in expects.items():
        steps[i]["expect"] = e
    return steps

def save(sid, title, story, steps, files=None):
    sc = {"id": sid, "title": title, "story": story, "domain": "crispr-off-target", "files": files or base_files(), "steps": steps}
    with open(os.path.join(OUT, f"{sid.lower()}.json"), "w") as f:
        json.dump(sc, f, indent=1)
        f.write("\n")

save("clean", "The same work done correctly",
     "Literature first, a design, a data dictionary, features and a model made by scripts, findings that match their JSON and name alternatives: vibe must stay silent.",
     clean_steps())

# M1: direction written before any literature search.
save("M1", "Literature searched after the direction was set",
     "The run chose its direction before searching prior art; the search came later and found the idea published.",
     [step("Write", {"pre": "deny", "says": ["L-1", "literature"]}, file_path=f"{RQ}/00-brainstorm/direction.md",
           content="# Research direction\n\nPredict off-target cleavage from mismatch features.\n"),
      step("Bash", {"pre": "deny", "says": ["L-1", "literature"]},
           command=f"printf '# Research direction\\n\\nPredict off-target cleavage from mismatch features.\\n' > {RQ}/00-brainstorm/direction.md"),
      step("Bash", {"pre": "deny", "says": ["L-1", "literature"]},
           command=f"python3 -c \"open('{RQ}/00-brainstorm/direction.md', 'w').write('# Research direction: mismatch features')\""),
      lit(),
      step("Write", file_path=f"{RQ}/00-brainstorm/direction.md",
           content="# Research direction\n\nPredict off-target cleavage from mismatch features.\n")])

# M3: label leakage (a read-count column that is the label) and a dominant feature.
leak = extract(extra_head=', "reads_log"', extra_row=', (1.0 if cleaved else 0.0) + 0.001 * (mm %% 2)')
leak = leak.replace("%%", "%")
save("M3", "Leakage and a dominant feature",
     "A feature derived from the read counts that define the label entered the table; the model leaned on it and looked excellent.",
     clean_steps(extract_src=leak,
                 train_body=CLEAN_BODY.replace('"feature_importance": {"mismatch_count": 0.41, "seed_mismatches": 0.35, "gc_content": 0.24}',
                                               '"feature_importance": {"reads_log": 0.81, "mismatch_count": 0.1, "seed_mismatches": 0.05, "gc_content": 0.04}'),
                 expects={6: {"post": "block", "says": ["DQ1", "reads_log"]},
                          8: {"post": "block", "says": ["DQ2", "reads_log", "importance"]}}))

def m4steps(steps):
    # The extraction runs in a pipeline whose next step crashes: the table
    # was written all the same, and the failed call must be judged too.
    steps[4] = step("Bash", {"post": "block", "says": ["DQ1", "cfd_score", "non-zero"]}, fails=True,
                    command=f"python3 {RQ}/03-analysis/extract_features.py && python3 -c \"raise SystemExit('fold split failed: 3 guides in fold 4')\"")
    return steps

# M4: a simplified score zeroes the CFD score of every site with a mismatch.
m4 = clean_steps()
m4[8:8] = [
    step("Write", file_path=f"{RQ}/03-analysis/extract_features.py", content=extract(cfd="1.0 if mm == 0 else 0.0")),
    # The rewritten extraction runs in a pipeline whose next step crashes:
    # the table was written all the same, and the failed call is judged too.
    step("Bash", {"post": "block", "says": ["DQ1", "cfd_score", "zero"]}, fails=True,
         command=f"python3 {RQ}/03-analysis/extract_features.py && python3 -c \"raise SystemExit('fold split failed: 3 guides in fold 4')\""),
]
save("M4", "A simplified score zeroes part of a feature",
     "A shortcut CFD implementation returned 0 for any site with a mismatch; most of the column became zero between two versions of the table and nobody looked.",
     m4)

# M5: the computed mismatch count disagrees with the one the assay reports.
def extract_reported(computed):
    src = extract()
    src = src.replace('"cfd_score", "cleaved"', '"cfd_score", "reported_mismatches", "cleaved"')
    src = src.replace('w.writerow([r["guide_id"], r["site_id"], mm, r["gc"], seed, cfd, cleaved])',
                      'w.writerow([r["guide_id"], r["site_id"], ' + computed + ', r["gc"], seed, cfd, mm, cleaved])')
    return src
DICT_REPORTED = DICT.replace("| cfd_score | float | probability | CFD score of the guide-site pair, 0 to 1 |",
                             "| cfd_score | float | probability | CFD score of the guide-site pair, 0 to 1 |\n| reported_mismatches | integer | count | Mismatches as the GUIDE-seq table reports them |")
m5 = clean_steps(extract_src=extract_reported("mm if mm < 4 else mm - 1"),
                 expects={6: {"post": "block", "says": ["DQ1", "reported_mismatches"]}})
m5[4] = step("Write", file_path=f"{RQ}/02-data/DATA-DICTIONARY.md", content=DICT_REPORTED)
save("M5", "Computed and reported values disagree",
     "The mismatch count recomputed from the alignment disagreed with the count the assay reported for a third of the sites; the computed one was used without a cross-check.",
     m5)

# M6: FINDINGS.json re-generated with new numbers; FINDINGS.md left stale.
stale = clean_steps()
stale.append(step("Bash", {"post": "block", "says": ["DQ4", "0.81"]},
                  command=f"sed -i 's/\"auc\": 0.81/\"auc\": 0.74/' {RQ}/04-results/FINDINGS.json"))
stale.append(step("Bash", {"pre": "deny", "says": ["DQ4", "0.79"]},
                  command=f"echo 'After the re-run the model reaches AUC 0.79.' >> {RQ}/04-results/FINDINGS.md"))
save("M6", "Findings out of sync with their data",
     "The analysis was re-run and FINDINGS.json changed; FINDINGS.md kept reporting the old numbers.",
     stale)

# M7: an alignment bug leaves the seed-mismatch column all zero.
save("M7", "Alignment bug gives a constant column",
     "A coordinate off-by-one made every seed-mismatch count zero; the column went into the model unnoticed.",
     clean_steps(extract_src=extract(seed="0"),
                 expects={6: {"post": "block", "says": ["DQ1", "seed_mismatches", "zero variance"]}}))

# M8: subsampling kept a third of the guides.
M8_BODY = CLEAN_BODY.replace('"n_groups_total": len(guides), "n_groups_used": len(guides),\n           "groups_per_fold": [3, 3, 3, 3]',
                             '"n_groups_total": len(guides), "n_groups_used": 4, "group_key": "guide",\n           "groups_per_fold": [1, 1, 1, 1]')
assert M8_BODY != CLEAN_BODY
save("M8", "Subsampling that keeps a third of the groups",
     "A speed-up subsampled the data and kept 4 of 12 guides; each fold held one guide and the AUC was reported as if all guides had been used.",
     clean_steps(train_body=M8_BODY, expects={8: {"post": "block", "says": ["DQ2", "guide"]}}))

# M9: a causal claim with no alternative explanations.
OVERCLAIM = FINDINGS_MD.replace("separates cleaved from\nuncleaved sites", "shows that the mismatch count drives cleavage of\nsites").replace(
    "\n## Alternative explanations\n\nSites with many mismatches may simply be under-sequenced; read depth was not modelled.\n", "")
assert OVERCLAIM != FINDINGS_MD
m9 = clean_steps()
m9[9] = step("Write", {"pre": "deny", "says": ["DQ4", "Alternative"]}, file_path=f"{RQ}/04-results/FINDINGS.md", content=OVERCLAIM)
m9[10] = step("Write", file_path=f"{RQ}/04-results/FINDINGS.md", content=FINDINGS_MD)
save("M9", "An overclaim without alternative explanations",
     "A correlation was written up as a mechanism ('drives') with no alternative explanation considered; Reviewer 2 caught it only at the end.",
     m9)

# M10: a domain term misused (surfaced, never blocked).
MISUSE = FINDINGS_MD.replace("## Alternative explanations", "Most cleaved sites are binding sites of the guide.\n\n## Alternative explanations")
m10 = clean_steps()
m10[9] = step("Write", {"pre": "context", "post": "context", "says": ["binding site", "cleavage site"]},
              file_path=f"{RQ}/04-results/FINDINGS.md", content=MISUSE)
save("M10", "A domain term used wrongly",
     "GUIDE-seq measures cleavage, but the write-up called the sites binding sites; the wrong term propagated into the claims.",
     m10[:10])

# M12: a finding named in the log that the findings file calls something else.
m12 = clean_steps()
m12[9:9] = [step("Bash", command=f"echo '- 2026-11-24 F1b: mismatches predict cleavage (AUC 0.81)' >> .vibe-science/PROGRESS.md")]
m12[10] = step("Write", {"pre": "deny", "says": ["DQ4", "F1b"]}, file_path=f"{RQ}/04-results/FINDINGS.md", content=FINDINGS_MD)
save("M12", "One finding, two names",
     "The progress log called a result F6b while FINDINGS.md called it F6; later edits updated one and not the other.",
     m12[:11])

# M2: a planned, downloaded dataset no script ever reads.
m2 = clean_steps()
m2 += [step("Bash", command=f"ls {RQ}/03-analysis") for _ in range(8)]
m2[-1]["expect"] = {"post": "context", "says": ["changeseq.csv", "design"]}
m2files = base_files()
m2files[".vibe-science/domain-config.json"] = json.dumps({"domain": "crispr-off-target", "dq1": {"label_column": "cleaved"},
                                                          "observer": {"design_drift_actions": 3}}, indent=1) + "\n"
save("M2", "A planned dataset that is never used",
     "CHANGE-seq was planned and downloaded as a second dataset, then never read by any script; the conclusions rested on GUIDE-seq alone.",
     m2, files=m2files)

# M11: the logbook was written after the fact; the spine records every call as it happens.
# (Checked by TestSpineIsContemporaneous on the clean control, not by a reply.)

"""``bench certify``: a lab's whole plan run against a controller and a design,
filed as one sealed dossier, clause by clause (docs/certify.md).

plan.py             the plan file (YAML) and the jurisdiction profile it names
steps.py            what each step runs (the bench's and the twin's own commands)
step_records.py     what a step is and comes to: Step, Outcome, Evidence, the verdicts
command_output.py   a command's JSON lines read back, and its verdict line
judge_controller.py the judges of the link, the submission, the scenarios and the sessions
judge_design.py     the judges of the designs' campaigns: fairness, edge, recognition
judge_rng.py        the judge of the RNG battery of 810a.5
runner.py           the steps in order, each one's completion recorded atomically: resumable
features.py         which scenario of the shipped features tests which clause, and why one cannot be played
matrix.py           every testable clause of the profile's regulations as a row: what exercised it, the verdict
dossier.py          the index page and the JSON lines
manifest.py         every file's SHA-256, signed with the bench key; --verify
"""

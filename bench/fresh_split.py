"""Split each pinned list of fresh repositories into a half to fix from and a half held back.

    python bench/fresh_split.py          # prints "HALF framework repo commit" per repository

`LISTS` names each list's two halves: bench/fresh_repos.txt is A (read, fix from) and B (held
back, measured); bench/fresh_repos_jax2.txt, the second JAX audit, is C (fix from) and D
(measured); bench/fresh_repos_tf2.txt, the second TensorFlow audit, is E (fix from) and F
(measured); bench/fresh_repos_jax3.txt, the third JAX audit, is G (fix from) and H (measured);
bench/fresh_repos_tf3.txt, the third TensorFlow audit, is I (fix from) and J (measured);
bench/fresh_repos_jax4.txt, the fourth JAX audit, is K (fix from) and L (measured), and so is
its second list bench/fresh_repos_jax4b.txt (added when the first gave too few findings): a half
named by two lists is the union of each list's own split; bench/fresh_repos_tf4.txt, the fourth
TensorFlow audit, is M (fix from) and N (measured); bench/fresh_repos_jax5.txt and
bench/fresh_repos_tf5.txt, the fifth audit, are O/P (JAX) and Q/R (TensorFlow), and so are their
second lists bench/fresh_repos_jax5b.txt (O/P) and bench/fresh_repos_tf5b.txt (Q/R), each added
when the first gave too few findings, and the JAX third list bench/fresh_repos_jax5c.txt (O/P);
bench/fresh_repos_jax6.txt, the sixth JAX audit, is S (fix from, next session) and T (measured:
before = main 9cfb4dc, after = session 14's final main), and so is its second list
bench/fresh_repos_jax6b.txt and its third bench/fresh_repos_jax6c.txt (each added when T's findings
sat in too few repositories); bench/fresh_repos_tf6.txt, the sixth TensorFlow audit, is U (fix
from, next session) and V (measured: before = main 9cfb4dc, after = session 14's final main);
bench/fresh_repos_jax7.txt, the seventh JAX audit, is W (fix from, next session) and X (measured:
before = main 39cc0c4, after = session 15's final main), and so is its second list
bench/fresh_repos_jax7b.txt (added when X's findings were too few); bench/fresh_repos_tf7.txt, the
seventh TensorFlow audit, is Y (fix from, next session) and Z (measured: before = main 39cc0c4,
after = session 15's final main); bench/fresh_repos_jax8.txt, the eighth JAX audit, is AA (fix from,
next session) and AB (measured: before = main f61b627, after = session 16's final main), and so is
its second list bench/fresh_repos_jax8b.txt and its third bench/fresh_repos_jax8c.txt (each added
when AB's findings were too few);
bench/fresh_repos_tf8.txt, the eighth TensorFlow audit, is AC (fix from, next session) and AD
(measured: before = main f61b627, after = session 16's final main), and so is its second list
bench/fresh_repos_tf8b.txt (added so that AD's findings come from more repositories);
bench/fresh_repos_jax9.txt, the ninth JAX audit, is AE (fix from, next session) and AF (measured:
before = main c2b10b0, after = session 17's final main), and so is its second list
bench/fresh_repos_jax9b.txt (added so that AF's findings come from more repositories);
bench/fresh_repos_tf9.txt, the ninth TensorFlow audit, is AG (fix from, next session) and AH
(measured: before = main c2b10b0, after = session 17's final main), and so is its second list
bench/fresh_repos_tf9b.txt (added so that AH's findings come from more repositories);
bench/fresh_repos_jax10.txt, the tenth JAX audit, is AI (fix from, next session) and AJ (measured:
before = main 19c35ed, after = session 18's final main), and so is its second list
bench/fresh_repos_jax10b.txt (added so that AJ's findings come from more repositories);
bench/fresh_repos_tf10.txt, the tenth TensorFlow audit, is AK (fix from, next session) and AL
(measured: before = main 19c35ed, after = session 18's final main), and so is its second list
bench/fresh_repos_tf10b.txt, its third bench/fresh_repos_tf10c.txt, its fourth
bench/fresh_repos_tf10d.txt and its fifth bench/fresh_repos_tf10e.txt (each added when AL's findings were too few);
bench/fresh_repos_tf11.txt, the eleventh TensorFlow audit, is AO (fix from, next session) and AP
(measured: before = main b5aea52, after = session 19's final main), and so is its second list
bench/fresh_repos_tf11b.txt (added so that AP's findings come from more repositories).
bench/fresh_repos_jax11.txt, the eleventh JAX audit, is AM (fix from, next session) and AN (measured:
before = main b5aea52, after = session 19's final main), and so is its second list
bench/fresh_repos_jax11b.txt (added so that AN's findings come from more repositories). Halves named
after Z take two letters.
bench/fresh_repos_tf12.txt, the twelfth TensorFlow audit, is AS (fix from, next session) and AT
(measured: before = main 27faf08, after = session 20's final main), and so are its second list
bench/fresh_repos_tf12b.txt (added so that AT's findings come from more repositories) and its third
bench/fresh_repos_tf12c.txt (added when one repository held most of AT's findings).
bench/fresh_repos_tf13.txt, the thirteenth TensorFlow audit, is AW (fix from, next session) and AX
(measured: before = main 7a4ba65, after = session 21's final main), and so is its second list
bench/fresh_repos_tf13b.txt (added so that AX's findings come from more repositories) and its third
bench/fresh_repos_tf13c.txt and its fourth bench/fresh_repos_tf13d.txt (each added for the same reason).

bench/fresh_repos_jax12.txt, the twelfth JAX audit, is AQ (fix from, next session) and AR (measured:
before = main 27faf08, after = session 20's final main), and so is its second list
bench/fresh_repos_jax12b.txt and its third bench/fresh_repos_jax12c.txt (each added so that AR's
findings come from more repositories).

bench/fresh_repos_jax13.txt, the thirteenth JAX audit, is AU (fix from, next session) and AV (measured:
before = main 7a4ba65, after = session 21's final main), and so is its second list
bench/fresh_repos_jax13b.txt, its third bench/fresh_repos_jax13c.txt and its fourth bench/fresh_repos_jax13d.txt (each
added so that AV's findings come from more repositories).

bench/fresh_repos_jax14.txt, the fourteenth JAX audit, is AY (fix from, next session) and AZ (measured:
before = main db298d8, after = session 22's final main), and so is its second list
bench/fresh_repos_jax14b.txt, its third bench/fresh_repos_jax14c.txt, its fourth bench/fresh_repos_jax14d.txt and
its fifth bench/fresh_repos_jax14e.txt (each added so that AZ's findings come from more repositories).

bench/fresh_repos_tf14.txt, the fourteenth TensorFlow audit, is BA (fix from, next session) and BB
(measured: before = main db298d8, after = session 22's final main), and so is its second list
bench/fresh_repos_tf14b.txt (added so that BB's findings come from more repositories).

bench/fresh_repos_jax15.txt, the fifteenth JAX audit, is BC (fix from, next session) and BD (measured:
before = main 4d1aca2, after = session 23's final main), and so is its second list
bench/fresh_repos_jax15b.txt, its third bench/fresh_repos_jax15c.txt and its fourth bench/fresh_repos_jax15d.txt
(each added so that BD's findings come from more repositories).

bench/fresh_repos_tf15.txt, the fifteenth TensorFlow audit, is BE (fix from, next session) and BF
(measured: before = main 4d1aca2, after = session 23's final main), and so is its second list
bench/fresh_repos_tf15b.txt, its third bench/fresh_repos_tf15c.txt and its fourth bench/fresh_repos_tf15d.txt
(each added so that BF's findings come from more repositories).

bench/fresh_repos_jax16.txt, the sixteenth JAX audit, is BG (fix from, next session) and BH (measured:
before = main 9550dbb, after = session 24's final main).

bench/fresh_repos_tf16.txt, the sixteenth TensorFlow audit, is BI (fix from, next session) and BJ
(measured: before = main 9550dbb, after = session 24's final main), and so is its second list
bench/fresh_repos_tf16b.txt and its third bench/fresh_repos_tf16c.txt (second round; each added so that BJ's findings
come from more repositories).

bench/fresh_repos_jax17.txt, the seventeenth JAX audit, is BK (fix from, next session) and BL (measured:
before = main d1d7ecb, after = session 25's final main).
bench/fresh_repos_tf17.txt, the seventeenth TensorFlow audit, is BM (fix from, next session) and BN
(measured: before = main d1d7ecb, after = session 25's final main), and so is its second list
bench/fresh_repos_tf17b.txt, its third bench/fresh_repos_tf17c.txt and its fourth to eighth bench/fresh_repos_tf17d.txt to
bench/fresh_repos_tf17h.txt (second round; each added so that BN's findings come from more repositories).
bench/fresh_repos_jax18.txt, the eighteenth JAX audit, is BO (fix from, next session) and BP (measured:
before = main 82f258c, after = session 26's final main), and so are its second and third lists
bench/fresh_repos_jax18b.txt and bench/fresh_repos_jax18c.txt (each added when the lists before gave too few findings).
bench/fresh_repos_tf18.txt, the eighteenth TensorFlow audit (auditor audit18t), is BQ (fix from, next session) and
BR (measured: before = main 82f258c, after = session 26's final main), and so are its further lists
bench/fresh_repos_tf18b.txt, tf18c, ... (each added so that BR's findings come from more repositories).
bench/fresh_repos_tf18m.txt, the eighteenth TensorFlow audit's lists of its second auditor (audit18u), is BQ (fix from,
next session) and BR (measured: before = main 82f258c, after = session 26's final main), and so are its later lists
bench/fresh_repos_tf18n.txt, ... (each added so that BR's findings come from more repositories).
bench/fresh_repos_tf19m.txt, the nineteenth TensorFlow audit's lists of its second auditor (audit19u), is BU (fix from,
next session) and BV (measured: before = main f40a635, after = session 27's final main), and so are its later lists
bench/fresh_repos_tf19n.txt, ... (each added so that BV's findings come from more repositories).
bench/fresh_repos_jax19.txt, the nineteenth JAX audit, is BS (fix from, next session) and BT (measured:
before = main f40a635, after = session 27's final main), and so is its second list bench/fresh_repos_jax19b.txt
(added when the first gave too few findings), its third bench/fresh_repos_jax19c.txt and its fourth
bench/fresh_repos_jax19d.txt.
bench/fresh_repos_jax20.txt, the twentieth JAX audit, is BW (fix from, next session) and BX (measured:
before = main 82b89d0, after = session 28's final main), and so are its later lists bench/fresh_repos_jax20b.txt, ...
(if any: each added when the first gave too few findings).
bench/fresh_repos_tf19.txt, the nineteenth TensorFlow audit (first auditor, audit19t), is BU (fix from, next session) and
BV (measured: before = main f40a635, after = session 27's final main), and so are its further lists
bench/fresh_repos_tf19b.txt, tf19c, ... (each added so that BV's findings come from more repositories).
bench/fresh_repos_tf20.txt, the twentieth TensorFlow audit (first auditor, audit20t), is BY (fix from, next session) and
BZ (measured: before = main 82b89d0, after = session 28's final main), and so are its further lists
bench/fresh_repos_tf20b.txt, tf20c, ... (each added so that BZ's findings come from more repositories).
bench/fresh_repos_tf20m.txt, the twentieth TensorFlow audit's lists of its second auditor (audit20u), is BY (fix from,
next session) and BZ (measured: before = main 82b89d0, after = session 28's final main), and so are its later lists
bench/fresh_repos_tf20n.txt, ... (each added so that BZ's findings come from more repositories).
bench/fresh_repos_tf20v.txt, the twentieth TensorFlow audit's lists of its third auditor (audit20v), is BY (fix from,
next session) and BZ (measured: before = main 82b89d0, after = session 28's final main), and so are its later lists
bench/fresh_repos_tf20w.txt, ... (each added so that BZ's findings come from more repositories).
Deterministic: each framework's repositories, in the file's order, are shuffled with
one fixed seed and the first half of each (rounded down) is the fix-from half, the rest the
held-back one, so both halves hold every framework of the list. The seed was fixed before any
finding on these repositories was read (issue 23).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

SEED = 20261128
HERE = Path(__file__).resolve().parent
LIST = HERE / "fresh_repos.txt"
#: Each pinned list with the names of its halves: (fix from, measured on).
LISTS = {LIST: ("A", "B"), HERE / "fresh_repos_jax2.txt": ("C", "D"), HERE / "fresh_repos_tf2.txt": ("E", "F"),
         HERE / "fresh_repos_jax3.txt": ("G", "H"), HERE / "fresh_repos_tf3.txt": ("I", "J"),
         HERE / "fresh_repos_jax4.txt": ("K", "L"), HERE / "fresh_repos_jax4b.txt": ("K", "L"),
         HERE / "fresh_repos_tf4.txt": ("M", "N"), HERE / "fresh_repos_jax5.txt": ("O", "P"),
         HERE / "fresh_repos_tf5.txt": ("Q", "R"),
         HERE / "fresh_repos_tf5b.txt": ("Q", "R"), HERE / "fresh_repos_jax5b.txt": ("O", "P"),
         HERE / "fresh_repos_jax5c.txt": ("O", "P"), HERE / "fresh_repos_jax6.txt": ("S", "T"),
         HERE / "fresh_repos_jax6b.txt": ("S", "T"), HERE / "fresh_repos_jax6c.txt": ("S", "T"),
         HERE / "fresh_repos_tf6.txt": ("U", "V"), HERE / "fresh_repos_jax7.txt": ("W", "X"),
         HERE / "fresh_repos_jax7b.txt": ("W", "X"),
         HERE / "fresh_repos_tf7.txt": ("Y", "Z"),
         HERE / "fresh_repos_tf7b.txt": ("Y", "Z"),
         HERE / "fresh_repos_jax8.txt": ("AA", "AB"),
         HERE / "fresh_repos_jax8b.txt": ("AA", "AB"), HERE / "fresh_repos_jax8c.txt": ("AA", "AB"),
         HERE / "fresh_repos_tf8.txt": ("AC", "AD"),
         HERE / "fresh_repos_tf8b.txt": ("AC", "AD"),
         HERE / "fresh_repos_jax9.txt": ("AE", "AF"), HERE / "fresh_repos_jax9b.txt": ("AE", "AF"),
         HERE / "fresh_repos_tf9.txt": ("AG", "AH"), HERE / "fresh_repos_tf9b.txt": ("AG", "AH"),
         HERE / "fresh_repos_jax10.txt": ("AI", "AJ"), HERE / "fresh_repos_jax10b.txt": ("AI", "AJ"),
         HERE / "fresh_repos_tf10.txt": ("AK", "AL"), HERE / "fresh_repos_tf10b.txt": ("AK", "AL"),
         HERE / "fresh_repos_tf10c.txt": ("AK", "AL"), HERE / "fresh_repos_tf10d.txt": ("AK", "AL"),
         HERE / "fresh_repos_tf10e.txt": ("AK", "AL"),
         HERE / "fresh_repos_tf11.txt": ("AO", "AP"), HERE / "fresh_repos_tf11b.txt": ("AO", "AP"),
         HERE / "fresh_repos_jax11.txt": ("AM", "AN"), HERE / "fresh_repos_jax11b.txt": ("AM", "AN")}
LISTS[HERE / "fresh_repos_tf12.txt"] = ("AS", "AT")  # the twelfth TensorFlow audit
LISTS[HERE / "fresh_repos_tf12b.txt"] = ("AS", "AT")  # its second list
LISTS[HERE / "fresh_repos_tf12c.txt"] = ("AS", "AT")  # its third list
LISTS[HERE / "fresh_repos_tf13.txt"] = ("AW", "AX")  # the thirteenth TensorFlow audit
LISTS[HERE / "fresh_repos_tf13b.txt"] = ("AW", "AX")  # its second list
LISTS[HERE / "fresh_repos_tf13c.txt"] = ("AW", "AX")  # its third list
LISTS[HERE / "fresh_repos_tf13d.txt"] = ("AW", "AX")  # its fourth list

LISTS[HERE / "fresh_repos_jax12.txt"] = ("AQ", "AR")  # the twelfth JAX audit
LISTS[HERE / "fresh_repos_jax12b.txt"] = ("AQ", "AR")  # its second list
LISTS[HERE / "fresh_repos_jax12c.txt"] = ("AQ", "AR")  # its third list

LISTS[HERE / "fresh_repos_jax13.txt"] = ("AU", "AV")  # the thirteenth JAX audit
LISTS[HERE / "fresh_repos_jax13b.txt"] = ("AU", "AV")  # its second list
LISTS[HERE / "fresh_repos_jax13c.txt"] = ("AU", "AV")  # its third list
LISTS[HERE / "fresh_repos_jax13d.txt"] = ("AU", "AV")  # its fourth list

LISTS[HERE / "fresh_repos_jax14.txt"] = ("AY", "AZ")  # the fourteenth JAX audit
LISTS[HERE / "fresh_repos_jax14b.txt"] = ("AY", "AZ")  # its second list
LISTS[HERE / "fresh_repos_jax14c.txt"] = ("AY", "AZ")  # its third list
LISTS[HERE / "fresh_repos_jax14d.txt"] = ("AY", "AZ")  # its fourth list
LISTS[HERE / "fresh_repos_jax14e.txt"] = ("AY", "AZ")  # its fifth list

LISTS[HERE / "fresh_repos_tf14.txt"] = ("BA", "BB")  # the fourteenth TensorFlow audit
LISTS[HERE / "fresh_repos_tf14b.txt"] = ("BA", "BB")  # its second list

LISTS[HERE / "fresh_repos_jax15.txt"] = ("BC", "BD")  # the fifteenth JAX audit
LISTS[HERE / "fresh_repos_jax15b.txt"] = ("BC", "BD")  # its second list
LISTS[HERE / "fresh_repos_jax15c.txt"] = ("BC", "BD")  # its third list
LISTS[HERE / "fresh_repos_jax15d.txt"] = ("BC", "BD")  # its fourth list (second round)

LISTS[HERE / "fresh_repos_tf15.txt"] = ("BE", "BF")  # the fifteenth TensorFlow audit
LISTS[HERE / "fresh_repos_tf15b.txt"] = ("BE", "BF")  # its second list
LISTS[HERE / "fresh_repos_tf15c.txt"] = ("BE", "BF")  # its third list (second round)
LISTS[HERE / "fresh_repos_tf15d.txt"] = ("BE", "BF")  # its fourth list (second round)

LISTS[HERE / "fresh_repos_jax16.txt"] = ("BG", "BH")  # the sixteenth JAX audit
LISTS[HERE / "fresh_repos_tf16.txt"] = ("BI", "BJ")  # the sixteenth TensorFlow audit
LISTS[HERE / "fresh_repos_tf16b.txt"] = ("BI", "BJ")  # its second list
LISTS[HERE / "fresh_repos_tf16c.txt"] = ("BI", "BJ")  # its third list (second round)

LISTS[HERE / "fresh_repos_jax17.txt"] = ("BK", "BL")  # the seventeenth JAX audit
LISTS[HERE / "fresh_repos_tf17.txt"] = ("BM", "BN")  # the seventeenth TensorFlow audit
LISTS[HERE / "fresh_repos_tf17b.txt"] = ("BM", "BN")  # its second list
LISTS[HERE / "fresh_repos_tf17c.txt"] = ("BM", "BN")  # its third list
LISTS[HERE / "fresh_repos_tf17d.txt"] = ("BM", "BN")  # its fourth list (second round)
LISTS[HERE / "fresh_repos_tf17e.txt"] = ("BM", "BN")  # its fifth list (second round)
LISTS[HERE / "fresh_repos_tf17f.txt"] = ("BM", "BN")  # its sixth list (second round)
LISTS[HERE / "fresh_repos_tf17g.txt"] = ("BM", "BN")  # its seventh list (second round)
LISTS[HERE / "fresh_repos_tf17h.txt"] = ("BM", "BN")  # its eighth list (second round)
LISTS[HERE / "fresh_repos_tf18.txt"] = ("BQ", "BR")  # the eighteenth TensorFlow audit (audit18t)
LISTS[HERE / "fresh_repos_tf18b.txt"] = ("BQ", "BR")  # its second list (audit18t)
LISTS[HERE / "fresh_repos_tf18c.txt"] = ("BQ", "BR")  # its third list (audit18t)
LISTS[HERE / "fresh_repos_tf18d.txt"] = ("BQ", "BR")  # its fourth list (audit18t)
LISTS[HERE / "fresh_repos_tf18e.txt"] = ("BQ", "BR")  # its fifth list (audit18t)
LISTS[HERE / "fresh_repos_tf18f.txt"] = ("BQ", "BR")  # its sixth list (audit18t)
LISTS[HERE / "fresh_repos_tf18g.txt"] = ("BQ", "BR")  # its seventh list (audit18t)

LISTS[HERE / "fresh_repos_jax18.txt"] = ("BO", "BP")  # the eighteenth JAX audit
LISTS[HERE / "fresh_repos_jax18b.txt"] = ("BO", "BP")  # its second list
LISTS[HERE / "fresh_repos_jax18c.txt"] = ("BO", "BP")  # its third list
LISTS[HERE / "fresh_repos_tf18m.txt"] = ("BQ", "BR")  # the eighteenth TensorFlow audit, second auditor (audit18u)
LISTS[HERE / "fresh_repos_tf18n.txt"] = ("BQ", "BR")  # its second list (audit18u)
LISTS[HERE / "fresh_repos_tf18o.txt"] = ("BQ", "BR")  # its third list (audit18u)
LISTS[HERE / "fresh_repos_tf18p.txt"] = ("BQ", "BR")  # its fourth list (audit18u)
LISTS[HERE / "fresh_repos_tf18q.txt"] = ("BQ", "BR")  # its fifth list (audit18u)
LISTS[HERE / "fresh_repos_tf18r.txt"] = ("BQ", "BR")  # its sixth list (audit18u)
LISTS[HERE / "fresh_repos_tf19.txt"] = ("BU", "BV")  # the nineteenth TensorFlow audit (audit19t)
LISTS[HERE / "fresh_repos_tf19b.txt"] = ("BU", "BV")  # its second list (audit19t)
LISTS[HERE / "fresh_repos_tf19c.txt"] = ("BU", "BV")  # its third list (audit19t)
LISTS[HERE / "fresh_repos_tf19d.txt"] = ("BU", "BV")  # its fourth list (audit19t)
LISTS[HERE / "fresh_repos_tf19e.txt"] = ("BU", "BV")  # its fifth list (audit19t)

LISTS[HERE / "fresh_repos_tf19m.txt"] = ("BU", "BV")  # the nineteenth TensorFlow audit, second auditor (audit19u)
LISTS[HERE / "fresh_repos_tf19n.txt"] = ("BU", "BV")  # its second list (audit19u)
LISTS[HERE / "fresh_repos_tf19o.txt"] = ("BU", "BV")  # its third list (audit19u)
LISTS[HERE / "fresh_repos_tf19p.txt"] = ("BU", "BV")  # its fourth list (audit19u)
LISTS[HERE / "fresh_repos_tf20m.txt"] = ("BY", "BZ")  # the twentieth TensorFlow audit, second auditor (audit20u)
LISTS[HERE / "fresh_repos_tf20n.txt"] = ("BY", "BZ")  # its second list (audit20u)
LISTS[HERE / "fresh_repos_jax19.txt"] = ("BS", "BT")  # the nineteenth JAX audit
LISTS[HERE / "fresh_repos_jax19b.txt"] = ("BS", "BT")  # its second list
LISTS[HERE / "fresh_repos_jax19c.txt"] = ("BS", "BT")  # its third list
LISTS[HERE / "fresh_repos_jax19d.txt"] = ("BS", "BT")  # its fourth list
LISTS[HERE / "fresh_repos_jax20.txt"] = ("BW", "BX")  # the twentieth JAX audit
LISTS[HERE / "fresh_repos_tf20.txt"] = ("BY", "BZ")  # the twentieth TensorFlow audit (audit20t)
LISTS[HERE / "fresh_repos_tf20b.txt"] = ("BY", "BZ")  # its second list (audit20t)
LISTS[HERE / "fresh_repos_tf20v.txt"] = ("BY", "BZ")  # the twentieth TensorFlow audit, third auditor (audit20v)
LISTS[HERE / "fresh_repos_tf20w.txt"] = ("BY", "BZ")  # its second list (audit20v)


def repos(path: Path = LIST) -> list[tuple[str, str, str]]:
    """(repo, commit, framework) per line of the pinned list."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            repo, commit, framework = line.split()[:3]
            rows.append((repo, commit, framework))
    return rows


def split(rows: list[tuple[str, str, str]], seed: int = SEED,
          names: tuple[str, str] = ("A", "B")) -> dict[str, list[tuple[str, str, str]]]:
    """{first: [...], second: [...]}: per framework, a seeded shuffle cut in two."""
    rng = random.Random(seed)
    first, second = names
    halves: dict[str, list[tuple[str, str, str]]] = {first: [], second: []}
    for framework in sorted({f for _, _, f in rows}):
        group = [r for r in rows if r[2] == framework]
        rng.shuffle(group)
        halves[first] += group[: len(group) // 2]
        halves[second] += group[len(group) // 2:]
    return halves


def halves_of(half: str) -> dict[str, list[tuple[str, str, str]]]:
    """Both halves `half` (a letter of `LISTS`) belongs to, each the union over the lists naming it."""
    halves: dict[str, list[tuple[str, str, str]]] = {}
    for path, names in LISTS.items():
        if half in names:
            for name, rows in split(repos(path), names=names).items():
                halves.setdefault(name, []).extend(rows)
    if not halves:
        raise SystemExit(f"no list has a half {half!r}: " + ", ".join("/".join(n) for n in LISTS.values()))
    return halves


def all_halves() -> dict[str, list[tuple[str, str, str]]]:
    return {h: rows for names in dict.fromkeys(LISTS.values()) for h, rows in halves_of(names[0]).items()}


if __name__ == "__main__":
    for half, rows in all_halves().items():
        for repo, commit, framework in rows:
            sys.stdout.write(f"{half} {framework} {repo} {commit}\n")

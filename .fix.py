import re, pathlib, os
moved = {  # name: (old module, new module), paths relative to repo root without .ts
 'HealthLevel': ('src/health', 'src/model'), 'Health': ('src/health', 'src/model'), 'HealthPolicy': ('src/health', 'src/model'),
 'CompeteRule': ('src/compete/config', 'src/model'), 'OutputFile': ('src/publish', 'src/model'),
 'BuildReport': ('src/build', 'src/report'), 'SourceReport': ('src/quotes', 'src/report'), 'ReserveReport': ('src/reserves/fetch', 'src/report'),
 'ExportOmission': ('src/tally', 'src/report'), 'DirectionTally': ('src/tally', 'src/report'), 'ExportLeftOut': ('src/tally', 'src/report'),
 'SourceStatus': ('src/status', 'src/report'), 'Status': ('src/status', 'src/report'), 'LeftOutStatus': ('src/status', 'src/report'), 'CompetingStatus': ('src/status', 'src/report'),
 'QuoteBook': ('src/quotes', 'src/sources/source'), 'ReserveBook': ('src/reserves/fetch', 'src/reserves/source'),
 'ExportItem': ('src/exports/select', 'src/exports/items'), 'ExportStep': ('src/exports/select', 'src/exports/items'),
 'itemElements': ('src/exports/select', 'src/exports/items'), 'ExportModel': ('src/exports/select', 'src/exports/items'),
 'readLiveCodes': ('src/codes', 'src/live-codes'), 'writeLiveCodes': ('src/codes', 'src/live-codes'),
}
imp = re.compile(r"import (type )?\{([^}]*)\} from '([^']+)';\n", re.S)
files = [p for d in ('src', 'test', 'bench') for p in pathlib.Path(d).rglob('*.ts')]
for f in files:
    s = f.read_text(); orig = s
    fdir = os.path.dirname(str(f))
    self_mod = str(f)[:-3]
    adds = {}  # new module -> list of (name, typeonly)
    def repl(m):
        whole_type, names, spec = m.group(1), m.group(2), m.group(3)
        if not spec.startswith('.'): return m.group(0)
        target = os.path.normpath(os.path.join(fdir, spec))
        if target.endswith('.js'): target = target[:-3]
        keep = []; changed = False
        for raw in [n.strip() for n in names.split(',') if n.strip()]:
            t = raw.startswith('type ')
            name = raw[5:].strip() if t else raw
            base = name.split(' as ')[0].strip()
            if base in moved and moved[base][0] == target:
                new = moved[base][1]
                if new == self_mod: changed = True; continue
                adds.setdefault(new, []).append((name, bool(whole_type) or t or base[0].isupper())); changed = True
            else: keep.append(raw)
        if not changed: return m.group(0)
        if not keep: return ''
        return f"import {whole_type or ''}{{ {', '.join(keep)} }} from '{spec}';\n"
    s = imp.sub(repl, s)
    for new, names in adds.items():
        rel = os.path.relpath(new, fdir)
        if not rel.startswith('.'): rel = './' + rel
        spec = rel + '.js'
        # merge into an existing import from spec
        m = re.search(r"import (type )?\{([^}]*)\} from '" + re.escape(spec) + "';\n", s)
        if m:
            wt = bool(m.group(1))
            ex = [n.strip() for n in m.group(2).split(',') if n.strip()]
            if wt: ex = ['type ' + n for n in ex]
            allnames = ex + [('type ' + n if t else n) for n, t in names if ('type ' + n if t else n) not in ex]
            if all(n.startswith('type ') for n in allnames):
                line = f"import type {{ {', '.join(sorted(n[5:] for n in allnames))} }} from '{spec}';\n"
            else:
                line = f"import {{ {', '.join(allnames)} }} from '{spec}';\n"
            s = s[:m.start()] + line + s[m.end():]
        else:
            if all(t for _, t in names): line = f"import type {{ {', '.join(n for n, _ in names)} }} from '{spec}';\n"
            else: line = f"import {{ {', '.join(('type ' + n if t else n) for n, t in names)} }} from '{spec}';\n"
            # insert after the last import line
            ms = list(re.finditer(r"^import [^;]*;\n", s, re.M))
            pos = ms[-1].end() if ms else 0
            s = s[:pos] + line + s[pos:]
    if s != orig: f.write_text(s); print('fixed', f)

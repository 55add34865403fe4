// report.html: the item tables and their details, drawn from the page's JSON data island.
// Every text goes into the page through textContent, never as markup.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined) return;
      if (name === "text") node.textContent = String(value);
      else if (name === "class") node.className = value;
      else node.setAttribute(name, value);
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function usd(value) { return value === null || value === undefined ? "—" : "$" + value.toFixed(4); }
  function pct(value) { return value === null || value === undefined ? "—" : Math.round(value * 100) + "%"; }
  function num(value) { return value === null || value === undefined ? "—" : value.toLocaleString("en-US"); }
  function passText(facts) {
    if (!facts) return "—";
    var total = facts.found.length + facts.missing.length;
    var shown = total ? facts.found.length + "/" + total : (facts.declined ? "declined" : "0/0");
    return shown + (facts.correct ? " pass" : " fail");
  }
  function passCell(facts) {
    return el("span", {class: facts ? (facts.correct ? "pass" : "fail") : "muted", text: passText(facts)});
  }

  // A sortable, filterable table of items; a click on a row opens its detail below it.
  function itemTable(spec) {
    var section = document.getElementById(spec.prefix + "-items");
    var controls = el("div", {class: "controls"});
    var selects = spec.filters.map(function (filter) {
      var select = el("select", {id: spec.prefix + "-" + filter.name, "aria-label": filter.label},
        filter.options.map(function (option) { return el("option", {value: option[0], text: option[1]}); }));
      controls.appendChild(el("label", {for: select.id, text: filter.label}));
      controls.appendChild(select);
      select.addEventListener("change", render);
      return select;
    });
    var search = el("input", {id: spec.prefix + "-search", type: "search", placeholder: "question id contains"});
    search.addEventListener("input", render);
    controls.appendChild(search);
    var count = el("span", {id: spec.prefix + "-count", class: "count"});
    controls.appendChild(count);
    var head = el("tr", {}, spec.columns.map(function (column, index) {
      var th = el("th", {class: column.numeric ? "num" : null, "data-column": column.key, text: column.label, title: "sort"});
      th.addEventListener("click", function () { sortBy(index); });
      return th;
    }));
    var body = el("tbody");
    var table = el("table", {id: spec.prefix + "-table", class: "items"}, [el("thead", {}, [head]), body]);
    section.appendChild(controls);
    section.appendChild(table);
    var order = {index: null, direction: 1};
    var open = {};

    function sortBy(index) {
      order.direction = order.index === index ? -order.direction : 1;
      order.index = index;
      Array.prototype.forEach.call(head.children, function (th, i) {
        if (i === index) th.setAttribute("aria-sort", order.direction > 0 ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      });
      render();
    }

    function compare(a, b) {
      var value = spec.columns[order.index].value;
      var x = value(a), y = value(b);
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;  // blanks last, whichever direction
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * order.direction;
    }

    function detailRow(item) {
      return el("tr", {class: "detail", "data-for": item.id},
        [el("td", {class: "detail-cell", colspan: String(spec.columns.length)}, [spec.detail(item)])]);
    }

    function toggle(row, item) {
      var next = row.nextSibling;
      if (open[item.id]) {
        delete open[item.id];
        row.classList.remove("open");
        if (next && next.classList.contains("detail")) body.removeChild(next);
      } else {
        open[item.id] = true;
        row.classList.add("open");
        body.insertBefore(detailRow(item), next);
      }
    }

    function render() {
      var needle = search.value.trim().toLowerCase();
      var shown = spec.rows.filter(function (item) {
        for (var i = 0; i < selects.length; i++) {
          var chosen = selects[i].value;
          if (chosen && !spec.filters[i].test(item, chosen)) return false;
        }
        return !needle || item.q.toLowerCase().indexOf(needle) >= 0;
      });
      if (order.index !== null) shown = shown.slice().sort(compare);
      var fragment = document.createDocumentFragment();
      shown.forEach(function (item) {
        var row = el("tr", {class: "item" + (open[item.id] ? " open" : ""), "data-id": item.id},
          spec.columns.map(function (column) {
            var content = column.cell ? column.cell(item) : column.value(item);
            var cell = el("td", {class: column.numeric ? "num" : null});
            if (content instanceof Node) cell.appendChild(content);
            else cell.textContent = content === null || content === undefined ? "—" : String(content);
            return cell;
          }));
        row.addEventListener("click", function () { toggle(row, item); });
        fragment.appendChild(row);
        if (open[item.id]) fragment.appendChild(detailRow(item));
      });
      body.textContent = "";
      body.appendChild(fragment);
      count.textContent = shown.length + " of " + spec.rows.length + " items";
    }

    render();
    return {open: function (id) {
      var row = body.querySelector('tr.item[data-id="' + CSS.escape(id) + '"]');
      var item = spec.rows.filter(function (x) { return x.id === id; })[0];
      if (row && item && !open[id]) { toggle(row, item); row.scrollIntoView(); }
    }};
  }

  function choices(values, all) {
    return [["", all]].concat(values.map(function (v) { return [v, v]; }));
  }

  // The text of a provision with the given [start, end) ranges highlighted.
  function marked(text, ranges) {
    var merged = [];
    ranges.slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (r) {
      var last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1]]);
    });
    var pre = el("pre", {class: "text"});
    var at = 0;
    merged.forEach(function (r) {
      if (r[0] > at) pre.appendChild(document.createTextNode(text.slice(at, r[0])));
      pre.appendChild(el("mark", {class: "evidence", text: text.slice(r[0], r[1])}));
      at = r[1];
    });
    pre.appendChild(document.createTextNode(text.slice(at)));
    return pre;
  }

  // Calls travel as lists in the order of the island's call_fields.
  function call(row) {
    var found = {};
    DATA.call_fields.forEach(function (name, index) { found[name] = row[index]; });
    return found;
  }

  // The tool results a navagent turn carried: the call, then the ids it named or its error.
  function toolResults(tools) {
    if (!tools) return "";
    return el("ul", {class: "tools"}, tools.map(function (t) {
      var got = t[4] !== null ? "error: " + t[4]
        : (t[2].length ? t[2].join(", ") : "no provisions") + (t[3] ? " (+" + t[3] + " more)" : "");
      return el("li", {class: t[4] !== null ? "fail" : null, text: t[0] + " " + t[1] + " \u2192 " + got});
    }));
  }

  function ledger(rows) {
    var head = ["arm", "stage", "model", "uncached in", "cache write", "cache read", "output", "latency s", "cost"];
    return el("table", {class: "ledger"}, [
      el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", {text: h}); }))]),
      el("tbody", {}, rows.map(call).map(function (c) {
        return el("tr", {class: c.valid === false ? "fail" : null}, [
          el("td", {text: c.arm}), el("td", {}, [c.stage + (c.valid === false ? " (invalid)" : ""), toolResults(c.tools)]),
          el("td", {text: c.model}), el("td", {class: "num", text: num(c.input)}),
          el("td", {class: "num", text: num(c.write)}), el("td", {class: "num", text: num(c.read)}),
          el("td", {class: "num", text: num(c.output)}), el("td", {class: "num", text: c.latency.toFixed(2)}),
          el("td", {class: "num", text: usd(c.cost)})]);
      }))]);
  }

  function factsBlock(title, answer, facts, klass) {
    var parts = [el("h4", {text: title}), el("div", {class: "answer " + klass, text: answer === null ? "(no answer)" : answer})];
    if (facts) {
      parts.push(el("div", {}, [passCell(facts), facts.declined ? " · declined" : "",
        facts.found.length ? " · found: " + facts.found.join("; ") : "",
        facts.missing.length ? " · missing: " + facts.missing.join("; ") : ""]));
    }
    return el("div", {}, parts);
  }

  var QA = DATA.qa;
  // document[start:end] from the stretch of retrieved text that holds it.
  function provisionText(doc, start, end) {
    var found = (QA.texts[doc] || []).filter(function (s) { return s[0] <= start && end <= s[1]; })[0];
    return found ? found[2].slice(start - found[0], end - found[0]) : null;
  }
  function qaDetail(item) {
    var q = QA.questions[item.q];
    var box = el("div", {class: "qa-detail"});
    box.appendChild(el("h3", {text: item.q + " under " + item.mode}));
    box.appendChild(el("p", {}, [el("strong", {text: "Question: "}), q.question]));
    box.appendChild(el("p", {}, [el("strong", {text: "Reference: "}), q.reference === null ? "(none)" : q.reference]));
    box.appendChild(el("p", {class: "muted", text: [q.kind, q.area, q.difficulty, "judge " + item.judge].join(" · ")}));
    box.appendChild(el("p", {class: "muted", text: "error class: " + errorLabel(item.error) +
      (item.baseline ? "" : "; inject's: " + errorLabel(item.error_inject))}));
    box.appendChild(el("div", {class: "pair"}, [
      factsBlock("inject's answer", q.inject_answer, q.kf_inject, "inject"),
      item.baseline ? el("div") : factsBlock(item.mode + "'s answer", item.answer, item.kf_mode, "mode")]));
    if (item.verdict !== null) {
      box.appendChild(el("h4", {text: "Judge"}));
      box.appendChild(el("ul", {}, [
        el("li", {text: "forward (A = inject, B = " + item.mode + "): " + (item.fwd === null ? "unreadable" : item.fwd)}),
        el("li", {text: "reverse (A = " + item.mode + ", B = inject): " + (item.rev === null ? "unreadable" : item.rev)}),
        el("li", {text: "combined: " + item.verdict + "; key facts: " + item.cell.replace("_", " ")}),
        item.flag ? el("li", {class: "flag", text: "audit: " + item.flag}) : null]));
    }
    var evidence = item.evidence.map(function (e, index) {
      return {doc_id: q.quotes[index][0], quote: q.quotes[index][1], found: e[0], marks: e[1]};
    });
    var found = evidence.filter(function (e) { return e.found; });
    var missed = evidence.filter(function (e) { return !e.found; });
    box.appendChild(el("h4", {text: "Evidence: " + found.length + " of " + evidence.length + " quotes found"}));
    if (found.length) box.appendChild(el("ul", {class: "found"}, found.map(function (e) {
      return el("li", {}, [el("span", {class: "pass", text: "found "}), e.doc_id + ": “" + e.quote + "”"]);
    })));
    if (missed.length) box.appendChild(el("ul", {class: "missed"}, missed.map(function (e) {
      return el("li", {}, [el("span", {class: "fail", text: "missed "}), e.doc_id + ": “" + e.quote + "”"]);
    })));
    var marks = {};
    evidence.forEach(function (e) {
      e.marks.forEach(function (m) { (marks[m[0]] = marks[m[0]] || []).push([m[1], m[2]]); });
    });
    box.appendChild(el("h4", {text: "Provisions the answer saw (" + item.provisions.length + ", " + num(item.payload) + " payload tokens)"}));
    item.provisions.forEach(function (node) {
      var place = QA.provisions[node];
      var text = place ? provisionText(place.doc_id, place.start, place.end) : null;
      var label = place ? place.doc_id + " · " + (place.clause || "—") + " · " + node + " · " + place.start + "–" + place.end : node;
      var details = el("details", {class: "provision", "data-node": node}, [el("summary", {text: label})]);
      if (marks[node]) details.open = true;
      details.appendChild(text !== null ? marked(text, marks[node] || [])
        : el("p", {class: "muted text", text: "whole document: its text is the corpus and is not copied into the report"}));
      box.appendChild(details);
    });
    // A user's passages found in no document: shown to the model, outside evidence recall.
    if ((item.unlocated || []).length) {
      box.appendChild(el("h4", {text: "Unlocated passages (" + item.unlocated.length + "): shown to the model, not found in their documents, outside evidence recall"}));
      item.unlocated.forEach(function (u) {
        var details = el("details", {class: "provision unlocated"}, [el("summary", {text: "#" + u[0] + " · " + u[1] + " · unlocated"})]);
        details.appendChild(el("pre", {class: "text", text: u[2]}));
        box.appendChild(details);
      });
    }
    if (item.cut) {
      box.appendChild(el("p", {class: "muted", text: "payload budget: " + item.cut.cut + " of " + (item.cut.kept + item.cut.cut) + " passages (" + num(item.cut.cut_tokens) + " tokens) cut in rank order at " + num(item.cut.budget_tokens) + " tokens"}));
    }
    box.appendChild(el("h4", {text: "Ledger"}));
    box.appendChild(ledger(q.inject_calls.concat(item.calls)));
    return box;
  }

  // Why the mode's answer went wrong (results.error_attribution).
  var errorClasses = [["", "every class"], ["right", "right"], ["retrieval_miss", "retrieval miss"],
    ["reading_miss", "reading miss"], ["unscored", "unscored"], ["declined", "control declined"],
    ["not_declined", "control not declined"]];
  function errorLabel(name) {
    var found = errorClasses.filter(function (c) { return c[0] === name; })[0];
    return found ? found[1] : name;
  }

  if (QA) {
    var outcome = [["", "every outcome"], ["tie", "ties"], ["tie:both_pass", "ties: both pass"],
      ["tie:both_fail", "ties: both fail"], ["tie:differ", "ties: key facts differ"],
      ["inject", "inject wins"], ["mode", "mode wins"], ["failing_winner", "won by a failing answer"],
      ["audit", "flagged for audit"], ["unscored", "unscored"], ["split", "split (forced)"],
      ["none", "not judged"]];
    var qaTable = itemTable({
      prefix: "qa", rows: QA.items, detail: qaDetail,
      filters: [
        {name: "mode", label: "mode", options: choices(QA.modes, "every mode"), test: function (i, v) { return i.mode === v; }},
        {name: "kind", label: "kind", options: choices(QA.kinds, "every kind"), test: function (i, v) { return i.kind === v; }},
        {name: "outcome", label: "outcome", options: outcome, test: function (i, v) { return i.tags.indexOf(v) >= 0; }},
        {name: "error", label: "error class", options: errorClasses, test: function (i, v) { return i.error === v; }}],
      columns: [
        {key: "q", label: "question", value: function (i) { return i.q; }},
        {key: "mode", label: "mode", value: function (i) { return i.mode; }},
        {key: "kind", label: "kind", value: function (i) { return i.kind; }},
        {key: "area", label: "practice area", value: function (i) { return i.area; }},
        {key: "fwd", label: "fwd", value: function (i) { return i.fwd; }},
        {key: "rev", label: "rev", value: function (i) { return i.rev; }},
        {key: "verdict", label: "verdict", value: function (i) { return i.verdict; },
         cell: function (i) { return el("span", {class: i.flag ? "flag" : null, title: i.flag || null, text: (i.verdict || "—") + (i.flag ? " ⚑" : "")}); }},
        {key: "kf_inject", label: "key facts inject", value: function (i) { return QA.questions[i.q].kf_inject.correct ? 1 : 0; },
         cell: function (i) { return passCell(QA.questions[i.q].kf_inject); }},
        {key: "kf_mode", label: "key facts mode", value: function (i) { return i.kf_mode ? (i.kf_mode.correct ? 1 : 0) : null; },
         cell: function (i) { return passCell(i.kf_mode); }},
        {key: "error", label: "error class", value: function (i) { return errorLabel(i.error); },
         cell: function (i) { return el("span", {class: "error-" + i.error, title: "inject: " + errorLabel(i.error_inject), text: errorLabel(i.error)}); }},
        {key: "recall", label: "evidence recall", numeric: true, value: function (i) { return i.recall; }, cell: function (i) { return pct(i.recall); }},
        {key: "payload", label: "payload tokens", numeric: true, value: function (i) { return i.payload; }, cell: function (i) { return num(i.payload); }},
        {key: "cost_mode", label: "mode cost", numeric: true, value: function (i) { return i.cost_mode; }, cell: function (i) { return usd(i.cost_mode); }},
        {key: "cost_inject", label: "inject cost", numeric: true, value: function (i) { return i.cost_inject; }, cell: function (i) { return usd(i.cost_inject); }}]
    });
    window.legalbenchReport = {qa: qaTable};
  }

  var GANDR = DATA.gandr;
  function traceEntry(entry) {
    var box = el("div", {class: "trace-round"});
    if (entry.round !== undefined) {
      box.appendChild(el("h5", {text: "round " + entry.round + (entry.committed ? " (committed)" : "")}));
      if (entry.directives_in && entry.directives_in.length) box.appendChild(el("ul", {}, entry.directives_in.map(function (d) { return el("li", {text: "directive: " + d}); })));
      if (entry.protocol) box.appendChild(el("p", {text: "protocol check: " + (entry.protocol.passed ? "passed" : "failed") + ((entry.protocol.problems || []).length ? " — " + entry.protocol.problems.join("; ") : "")}));
      var claims = entry.audit ? entry.audit.claims : [];
      if (claims.length) box.appendChild(el("table", {class: "claims"}, [
        el("thead", {}, [el("tr", {}, ["claim", "block", "text", "cited", "label", "reason"].map(function (h) { return el("th", {text: h}); }))]),
        el("tbody", {}, claims.map(function (c) {
          return el("tr", {}, [el("td", {text: c.claim_id}), el("td", {text: c.block}), el("td", {text: c.claim}),
            el("td", {text: c.cited_id}), el("td", {class: "label-" + c.label, text: c.label}), el("td", {text: c.reason})]);
        }))]));
      if (entry.rubric) box.appendChild(el("p", {text: "rubric: " + Object.keys(entry.rubric.scores).map(function (k) { return k + " " + entry.rubric.scores[k]; }).join(", ") + " (mean " + entry.rubric.mean + ")"}));
      if (entry.critic) box.appendChild(el("p", {text: "critic: " + entry.critic.decision + (entry.critic.directives.length ? " — " + entry.critic.directives.join("; ") : "")}));
      box.appendChild(el("details", {}, [el("summary", {text: "draft"}), el("div", {class: "answer", text: entry.draft})]));
    } else {
      box.appendChild(el("h5", {text: "step: " + (entry.step || "?")}));
      box.appendChild(el("div", {class: "answer", text: entry.output === undefined ? JSON.stringify(entry) : entry.output}));
    }
    return box;
  }

  function gandrDetail(item) {
    var box = el("div", {class: "gandr-detail"});
    box.appendChild(el("h3", {text: item.q + " under " + item.system}));
    box.appendChild(el("p", {}, [el("strong", {text: "Question: "}), item.question]));
    box.appendChild(el("p", {}, [el("strong", {text: "Reference: "}), item.reference === null ? "(none)" : item.reference]));
    item.repeats.forEach(function (r) {
      box.appendChild(el("h4", {text: "seed " + r.seed + ": score " + (r.score === null ? "none" : r.score) +
        (r.strict ? ", strict-correct" : r.lenient ? ", lenient-correct only" : ", not correct") +
        (r.grounded ? ", grounded" : ", not grounded") + ", " + r.rounds + " round(s)" +
        (r.passed === null ? "" : r.passed ? ", passed" : ", did not pass")}));
      box.appendChild(el("div", {class: "answer memo", text: r.answer}));
      if (r.rationale) box.appendChild(el("p", {class: "muted", text: "judge: " + r.rationale}));
      var labels = Object.keys(r.audit_labels);
      if (labels.length) box.appendChild(el("p", {text: "claim labels: " + labels.map(function (k) { return k + " " + r.audit_labels[k]; }).join(", ")}));
      box.appendChild(el("details", {class: "trace", open: "open"}, [el("summary", {text: "audit trace (" + r.trace.length + ")"})].concat(r.trace.map(traceEntry))));
      box.appendChild(ledger(r.calls));
    });
    if (item.equivalence.length) box.appendChild(el("p", {text: "equivalence: " + item.equivalence.map(function (e) {
      return "seeds " + e[0] + "–" + e[1] + " " + (e[2] === null ? "no verdict" : e[2] ? "same" : "differ"); }).join("; ")}));
    box.appendChild(el("h4", {text: "Passages (" + item.passages.length + ")"}));
    item.passages.forEach(function (id) {
      box.appendChild(el("details", {class: "provision"}, [el("summary", {text: id}), el("pre", {class: "text", text: GANDR.passages[id] || ""})]));
    });
    return box;
  }

  if (GANDR) {
    itemTable({
      prefix: "gandr", rows: GANDR.items, detail: gandrDetail,
      filters: [
        {name: "system", label: "system", options: choices(GANDR.systems, "every system"), test: function (i, v) { return i.system === v; }},
        {name: "kind", label: "kind", options: choices(GANDR.kinds, "every kind"), test: function (i, v) { return i.kind === v; }},
        {name: "outcome", label: "outcome", options: [["", "every outcome"], ["strict", "strict-correct"], ["lenient_only", "lenient-correct only"],
          ["incorrect", "not correct"], ["no_score", "no score"], ["stable", "stable & correct"], ["not_passed", "loop did not pass"]],
         test: function (i, v) { return i.tags.indexOf(v) >= 0; }}],
      columns: [
        {key: "q", label: "question", value: function (i) { return i.q; }},
        {key: "system", label: "system", value: function (i) { return i.system; }},
        {key: "kind", label: "kind", value: function (i) { return i.kind; }},
        {key: "area", label: "practice area", value: function (i) { return i.area; }},
        {key: "score", label: "score (seed 0)", numeric: true, value: function (i) { return i.score; }},
        {key: "strict", label: "strict", value: function (i) { return i.strict === null ? null : i.strict ? "yes" : "no"; }},
        {key: "lenient", label: "lenient", value: function (i) { return i.lenient === null ? null : i.lenient ? "yes" : "no"; }},
        {key: "stable", label: "stable & correct", value: function (i) { return i.stable === null ? null : i.stable ? "yes" : "no"; }},
        {key: "rounds", label: "rounds", numeric: true, value: function (i) { return i.rounds; }},
        {key: "claims", label: "claims supported", value: function (i) { return i.claims; }},
        {key: "cost", label: "cost", numeric: true, value: function (i) { return i.cost; }, cell: function (i) { return usd(i.cost); }}]
    });
  }

  var wanted = /^#item=(.+)$/.exec(window.location.hash);
  if (wanted && window.legalbenchReport) window.legalbenchReport.qa.open(decodeURIComponent(wanted[1]));
})();

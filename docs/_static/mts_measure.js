// Measures, once the page has loaded, what docs/browser_test.py checks a reader can see at
// the browser's width. It changes nothing a reader sees; it only writes attributes:
//   - on every diagram (<object>, <img>): its natural width and the width it is shown at,
//     so a diagram squeezed below its size (unreadable) is told from one shown whole;
//   - on <body>, data-mts-measured: how many diagrams it saw, and data-mts-column: the
//     width of the text column in px;
//   - on <body>, data-mts-report: a JSON list of what a reader cannot see whole, each
//     {kind, what, ...}: "diagram-overflow" (a diagram wider than the column),
//     "code-overflow" (a code block whose lines are wider than the block), "long-paragraph"
//     (more than 150 words in one paragraph), "raw-marker" (the text `[mts:` outside a
//     listing's caption), "label-overlap" (two texts of an SVG diagram drawn over each other,
//     or a text over an arrow), "label-clipped" (a text reaching past the picture's edge).
window.addEventListener("load", function () {
  var main = document.querySelector("div[role=main]");
  var report = [];
  var column = 0;
  if (main) {
    var style = window.getComputedStyle(main);
    column = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  }
  var diagrams = document.querySelectorAll("div[role=main] object, div[role=main] img");
  diagrams.forEach(function (element) {
    var natural = 0;
    var svg = null;
    if (element.tagName === "OBJECT") {
      svg = element.contentDocument && element.contentDocument.documentElement;
      if (svg && svg.width && svg.width.baseVal) natural = svg.width.baseVal.value;
    } else {
      natural = element.naturalWidth;
    }
    var shown = element.getBoundingClientRect().width;
    element.setAttribute("data-mts-natural-width", Math.round(natural));
    element.setAttribute("data-mts-shown-width", Math.round(shown));
    var name = element.getAttribute("data") || element.getAttribute("src");
    if (column > 0 && Math.min(natural || shown, shown) > column + 1) {
      report.push({kind: "diagram-overflow", what: name, width: Math.round(shown),
                   column: Math.round(column)});
    }
    if (svg && svg.querySelectorAll) {
      overlaps(svg, name, report);
    } else if (/\.svg$/.test(element.getAttribute("src") || "")) {
      imageOverlaps(element, name, report);
    }
  });
  // Code blocks whose lines do not fit: the block scrolls sideways, hiding their ends.
  document.querySelectorAll("div[role=main] pre").forEach(function (pre) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      report.push({kind: "code-overflow", what: describe(pre),
                   width: pre.scrollWidth, shown: pre.clientWidth});
    }
  });
  document.querySelectorAll("div[role=main] p").forEach(function (p) {
    if (p.closest("object")) return;  // A diagram's source, shown only without SVG.
    var words = p.innerText.split(/\s+/).filter(function (w) { return /\w/.test(w); });
    if (words.length > 150) {
      report.push({kind: "long-paragraph", what: words.slice(0, 12).join(" "),
                   words: words.length});
    }
  });
  if (main) rawMarkers(main, report);
  document.body.setAttribute("data-mts-measured", String(diagrams.length));
  document.body.setAttribute("data-mts-column", String(Math.round(column)));
  document.body.setAttribute("data-mts-report", JSON.stringify(report));

  // A code block's name: its listing's caption, else its first line.
  function describe(pre) {
    var wrapper = pre.closest(".literal-block-wrapper");
    var caption = wrapper && wrapper.querySelector(".caption-text");
    var beside = pre.closest(".mts-beside");
    var title = beside && beside.querySelector(".mts-beside-title");
    if (caption) return caption.innerText.trim();
    if (title) return "beside: " + title.innerText.trim();
    return (pre.innerText.split("\n")[0] || "").trim().slice(0, 80);
  }

  // `[mts:` in the text a reader reads: a marker the build did not replace. A listing's
  // caption may name its marker.
  function rawMarkers(root, out) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var at = node.nodeValue.indexOf("[mts:");
      if (at < 0) continue;
      var parent = node.parentElement;
      if (parent && parent.closest(".caption, .code-block-caption, pre")) continue;
      out.push({kind: "raw-marker", what: node.nodeValue.slice(Math.max(0, at - 30), at + 50)});
    }
  }

  // Texts drawn over each other, and texts over an arrow (an edge that has an arrowhead), in
  // one SVG diagram, measured in the diagram's own units. Two lines of one label, which
  // touch, are not an overlap (see cross).
  function overlaps(svg, name, out) {
    var texts = [];
    svg.querySelectorAll("text").forEach(function (t) {
      if (!t.textContent.trim()) return;
      try { texts.push({box: t.getBBox(), text: t.textContent.trim(), node: t}); } catch (e) {}
    });
    // A text that reaches past the picture's edge is cut off where the browser draws it.
    var frame = svg.getBoundingClientRect();
    texts.forEach(function (t) {
      var r = t.node.getBoundingClientRect();
      if (r.left < frame.left - 1 || r.right > frame.right + 1 || r.top < frame.top - 1 ||
          r.bottom > frame.bottom + 1) {
        out.push({kind: "label-clipped", what: name, labels: [t.text]});
      }
    });
    for (var i = 0; i < texts.length; i++) {
      for (var j = i + 1; j < texts.length; j++) {
        if (cross(texts[i].box, texts[j].box, 2)) {
          out.push({kind: "label-overlap", what: name,
                    labels: [texts[i].text, texts[j].text]});
        }
      }
    }
    svg.querySelectorAll("g.edge").forEach(function (edge) {
      var path = edge.querySelector("path");
      if (!path || !edge.querySelector("polygon") || !path.getTotalLength) return;
      var length = path.getTotalLength();
      var points = [];
      for (var s = 0; s <= length; s += 2) points.push(path.getPointAtLength(s));
      texts.forEach(function (t) {
        var b = t.box;
        var hit = points.some(function (p) {
          return p.x > b.x + 1 && p.x < b.x + b.width - 1 &&
                 p.y > b.y + 2 && p.y < b.y + b.height - 2;
        });
        if (hit) {
          var title = edge.querySelector("title");
          out.push({kind: "label-overlap", what: name,
                    labels: [t.text, "the arrow " + (title ? title.textContent : "")]});
        }
      });
    });
  }

  // An <img> SVG (a chart) has no DOM of its own to measure: read its file again (the
  // browser has it cached), lay it out off-screen, measure it there, and take it away.
  function imageOverlaps(image, name, out) {
    var request = new XMLHttpRequest();
    try {
      request.open("GET", image.src, false);  // Synchronous: measured before the load ends.
      request.send();
    } catch (e) {
      return;
    }
    var doc = new DOMParser().parseFromString(request.responseText, "image/svg+xml");
    var svg = document.importNode(doc.documentElement, true);
    var box = document.createElement("div");
    box.style.cssText = "position:absolute; left:-20000px; top:0; visibility:hidden";
    box.appendChild(svg);
    document.body.appendChild(box);
    overlaps(svg, name, out);
    document.body.removeChild(box);
  }

  // Whether two boxes cross by more than `margin` sideways and by more than a third of the
  // lower one's height: lines of one label, set closer than the font's full height, touch.
  function cross(a, b, margin) {
    var tall = Math.max(margin, Math.min(a.height, b.height) / 3);
    return Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > margin &&
           Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > tall;
  }
});

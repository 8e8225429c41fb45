// Records, on every diagram of the page, its natural width and the width it is shown at,
// so that docs/browser_test.py can tell a diagram squeezed below its size (unreadable) from
// one shown whole. It changes nothing a reader sees.
window.addEventListener("load", function () {
  var diagrams = document.querySelectorAll("div[role=main] object, div[role=main] img");
  diagrams.forEach(function (element) {
    var natural = 0;
    if (element.tagName === "OBJECT") {
      var svg = element.contentDocument && element.contentDocument.documentElement;
      if (svg && svg.width && svg.width.baseVal) natural = svg.width.baseVal.value;
    } else {
      natural = element.naturalWidth;
    }
    element.setAttribute("data-mts-natural-width", Math.round(natural));
    element.setAttribute("data-mts-shown-width",
                         Math.round(element.getBoundingClientRect().width));
  });
  document.body.setAttribute("data-mts-measured", String(diagrams.length));
});

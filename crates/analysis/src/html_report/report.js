// report.html's script: pages long tables, draws the interactive charts (uPlot, embedded
// above when the report has charts) in place of their static figures, and marks what it
// rendered (data-rendered attributes) so that a headless browser can check the page.
(function () {
  "use strict";
  var pageRows = parseInt(document.body.getAttribute("data-page-rows"), 10) || 25;

  function pageTable(wrap) {
    var rows = wrap.querySelectorAll("tbody tr");
    if (rows.length <= pageRows) return;
    var page = 0, pages = Math.ceil(rows.length / pageRows);
    var bar = document.createElement("div");
    bar.className = "pager";
    var prev = document.createElement("button");
    prev.type = "button"; prev.textContent = "‹ previous";
    var next = document.createElement("button");
    next.type = "button"; next.textContent = "next ›";
    var label = document.createElement("span");
    bar.appendChild(prev); bar.appendChild(label); bar.appendChild(next);
    wrap.parentNode.insertBefore(bar, wrap);
    function show() {
      for (var i = 0; i < rows.length; i++) {
        rows[i].hidden = Math.floor(i / pageRows) !== page;
      }
      label.textContent = "rows " + (page * pageRows + 1) + "–" +
        Math.min(rows.length, (page + 1) * pageRows) + " of " + rows.length;
      prev.disabled = page === 0;
      next.disabled = page === pages - 1;
    }
    prev.addEventListener("click", function () { if (page > 0) { page--; show(); } });
    next.addEventListener("click", function () { if (page < pages - 1) { page++; show(); } });
    show();
  }
  Array.prototype.forEach.call(document.querySelectorAll(".table-wrap.paged"), pageTable);

  // Figures: mark each image once decoded; a figure that cannot be shown is an error.
  Array.prototype.forEach.call(document.querySelectorAll("figure.fig img.static"), function (img) {
    function done() {
      if (img.naturalWidth > 0) img.setAttribute("data-rendered", "1");
      else console.error("figure could not be shown: " + img.alt);
    }
    if (img.complete) done();
    else {
      img.addEventListener("load", done);
      img.addEventListener("error", function () { console.error("figure could not be shown: " + img.alt); });
    }
  });

  if (typeof uPlot === "undefined") return;

  function formatValue(v) {
    if (v == null) return "–";
    var a = Math.abs(v);
    return a >= 1000 ? v.toFixed(0) : a >= 10 ? v.toFixed(2) : v.toPrecision(4);
  }

  function chartSize(box) {
    var width = Math.max(240, box.clientWidth);
    return { width: width, height: Math.round(Math.min(420, Math.max(220, width * 0.5))) };
  }

  var charts = [];
  Array.prototype.forEach.call(document.querySelectorAll("script.chart-data"), function (el) {
    var id = el.getAttribute("data-chart");
    try {
      var d = JSON.parse(el.textContent);
      var box = document.querySelector('.chart[data-chart="' + id + '"]');
      if (!box) return;
      var figure = box.parentNode;
      var img = figure.querySelector("img.static");
      var title = document.createElement("p");
      title.className = "chart-title";
      title.textContent = d.y + " over time";
      box.hidden = false;
      box.appendChild(title);
      var series = [{ label: "time (s)", value: function (u, v) { return v == null ? "–" : v.toFixed(4); } }];
      d.lines.forEach(function (line) {
        series.push({
          label: line.label, stroke: line.color, width: 1.5,
          dash: line.dash ? [6, 4] : undefined,
          value: function (u, v) { return formatValue(v); }
        });
      });
      var size = chartSize(box);
      var plot = new uPlot({
        width: size.width, height: size.height,
        scales: { x: { time: false } },
        series: series,
        axes: [{ label: "time (s)" }, { label: d.y, size: 60 }],
        cursor: { drag: { x: true, y: false } },
        legend: { live: true }
      }, d.data, box);
      charts.push({ plot: plot, box: box });
      if (img) img.hidden = true;
      var toggle = document.createElement("button");
      toggle.type = "button"; toggle.className = "toggle";
      toggle.textContent = "static figure";
      toggle.addEventListener("click", function () {
        var showStatic = img && img.hidden;
        if (img) img.hidden = !showStatic;
        box.hidden = showStatic;
        toggle.textContent = showStatic ? "interactive chart" : "static figure";
        if (!showStatic) plot.setSize(chartSize(box));
      });
      figure.querySelector("figcaption").appendChild(toggle);
      box.setAttribute("data-rendered", "1");
    } catch (e) {
      console.error("chart " + id + " could not be drawn: " + e);
    }
  });
  var pending = null;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.forEach(function (c) { if (!c.box.hidden) c.plot.setSize(chartSize(c.box)); });
    }, 100);
  });
})();

// Labels drawn by us, not by vis.js: at a constant size on screen, in order of importance (the list `order`, most
// important first), each only where it overlaps no label already drawn. So the hubs are named at any zoom, the
// others as the user zooms in, and labels never pile up. fillText draws characters: document text is never parsed.
// `names` maps node id to its label; `forced` ids are labelled even where they overlap.
function hkeLabels(network, names, order, forced) {
  var PX = 13, FONT = "Noto Sans CJK KR, Noto Sans, Arial, sans-serif", widths = {};
  var measure = document.createElement("canvas").getContext("2d");
  measure.font = PX + "px " + FONT;
  window.hkeLabelled = [];
  network.on("afterDrawing", function (ctx) {
    // vis-network's own view (body.view: scale and translation) and node objects, read directly: getPositions and
    // canvasToDOM build an object per call, hundreds per frame.
    var view = network.body.view, scale = view.scale, tx = view.translation.x, ty = view.translation.y;
    var cell = 60, grid = {}, shown = [], rects = [], all = network.body.nodes;
    var canvas = ctx.canvas, W = canvas.clientWidth, H = canvas.clientHeight;
    ctx.save();
    ctx.font = (PX / scale) + "px " + FONT;
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    ctx.lineJoin = "round";
    ctx.lineWidth = 3 / scale;
    ctx.strokeStyle = "#ffffff";
    ctx.fillStyle = "#1f2328";
    function free(r) {
      for (var gx = Math.floor(r[0] / cell); gx <= Math.floor(r[2] / cell); gx++) {
        for (var gy = Math.floor(r[1] / cell); gy <= Math.floor(r[3] / cell); gy++) {
          var list = grid[gx + ":" + gy] || [];
          for (var i = 0; i < list.length; i++) {
            var o = list[i];
            if (r[0] < o[2] && o[0] < r[2] && r[1] < o[3] && o[1] < r[3]) { return false; }
          }
        }
      }
      return true;
    }
    function take(r) {
      for (var gx = Math.floor(r[0] / cell); gx <= Math.floor(r[2] / cell); gx++) {
        for (var gy = Math.floor(r[1] / cell); gy <= Math.floor(r[3] / cell); gy++) {
          (grid[gx + ":" + gy] = grid[gx + ":" + gy] || []).push(r);
        }
      }
    }
    for (var i = 0; i < order.length; i++) {
      var id = order[i], p = all[id], name = names[id];
      if (!p || !name) { continue; }
      var size = p.options.size || 10;
      var s = {x: p.x * scale + tx, y: (p.y + size + 2 / scale) * scale + ty};
      if (s.x < -200 || s.y < -40 || s.x > W + 200 || s.y > H + 40) { continue; }
      var w = widths[id] || (widths[id] = measure.measureText(name).width);
      // A node on screen near the frame's left or right edge gets its label moved inside the frame, not cut by it.
      var half = w / 2 + 2, dx = 0;
      if (s.x >= 0 && s.x <= W && 2 * half < W) { dx = Math.max(0, half - s.x) - Math.max(0, s.x + half - W); }
      var r = [s.x + dx - half, s.y, s.x + dx + half, s.y + PX + 3];
      if (!forced[id] && !free(r)) { continue; }
      take(r);
      shown.push(id);
      rects.push(r);
      ctx.strokeText(name, p.x + dx / scale, p.y + size + 2 / scale);
      ctx.fillText(name, p.x + dx / scale, p.y + size + 2 / scale);
    }
    ctx.restore();
    window.hkeLabelled = shown;
    window.hkeLabelRects = rects;  // screen boxes, for the browser tests
  });
}

// Loaded by tests/cli/svg.sh into a page that holds one zealot picture
// inline, in headless Chromium: every <text>'s box as the browser lays it
// out (getBBox, through its transform: a rotated label is its rotated
// box), each pair that overlaps by more than a pixel and each text that
// leaves the picture, written into <pre id="result"> for --dump-dom.
(function () {
	const svg = document.querySelector("svg");
	const W = svg.width.baseVal.value, H = svg.height.baseVal.value;
	const texts = Array.from(svg.querySelectorAll("text"));
	const quad = (t) => {
		const b = t.getBBox(), m = t.getCTM();
		const p = (x, y) => { const q = new DOMPoint(x, y).matrixTransform(m); return [q.x, q.y]; };
		return [p(b.x, b.y), p(b.x + b.width, b.y), p(b.x + b.width, b.y + b.height), p(b.x, b.y + b.height)];
	};
	// separating axes of two convex quads: apart when, on one edge's normal,
	// their projections are more than 1 px from overlapping
	const apart = (a, b) => {
		for (const poly of [a, b])
			for (let i = 0; i < 4; i++) {
				const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
				const len = Math.hypot(y2 - y1, x1 - x2) || 1, nx = (y2 - y1) / len, ny = (x1 - x2) / len;
				const pa = a.map(([x, y]) => nx * x + ny * y), pb = b.map(([x, y]) => nx * x + ny * y);
				if (Math.max(...pa) <= Math.min(...pb) + 1 || Math.max(...pb) <= Math.min(...pa) + 1)
					return true;
			}
		return false;
	};
	const q = texts.map(quad), out = [];
	const name = (t) => JSON.stringify(t.textContent);
	for (let i = 0; i < texts.length; i++) {
		const xs = q[i].map((p) => p[0]), ys = q[i].map((p) => p[1]);
		if (Math.min(...xs) < -0.5 || Math.min(...ys) < -0.5 || Math.max(...xs) > W + 0.5 || Math.max(...ys) > H + 0.5)
			out.push("outside: " + name(texts[i]) + " [" + xs.map(Math.round) + "] [" + ys.map(Math.round) + "]");
		for (let j = i + 1; j < texts.length; j++)
			if (!apart(q[i], q[j]))
				out.push("overlap: " + name(texts[i]) + " x " + name(texts[j]));
	}
	const pre = document.createElement("pre");
	pre.id = "result";
	pre.textContent = "texts " + texts.length + "\n" + out.join("\n") + "\nend\n";
	document.body.appendChild(pre);
})();

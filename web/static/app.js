// Mnemo console: the few things the pages do in the browser, on top of
// htmx. Every page works without it; this only makes a page easier to use.
(function () {
	'use strict';

	// A table with a header row gives each of its cells the name of its
	// column (data-label): on a phone the rows are stacked (app.css) and
	// each value is shown under the name of its column.
	function labelTable(table) {
		var head = table.tHead && table.tHead.rows[0];
		if (!head) {
			return;
		}
		var names = [];
		for (var i = 0; i < head.cells.length; i++) {
			var th = head.cells[i];
			var name = (th.getAttribute('data-label') || th.textContent || '').replace(/\s+/g, ' ').trim();
			for (var span = 0; span < th.colSpan; span++) {
				names.push(name);
			}
		}
		for (var b = 0; b < table.tBodies.length; b++) {
			var rows = table.tBodies[b].rows;
			for (var r = 0; r < rows.length; r++) {
				var col = 0;
				for (var c = 0; c < rows[r].cells.length; c++) {
					var cell = rows[r].cells[c];
					if (!cell.hasAttribute('data-label') && names[col]) {
						cell.setAttribute('data-label', names[col]);
					}
					col += cell.colSpan;
				}
			}
		}
	}

	function labelTables(root) {
		var own = root.closest ? root.closest('table') : null;
		if (own) {
			labelTable(own);
		}
		if (root.querySelectorAll) {
			root.querySelectorAll('table').forEach(labelTable);
		}
	}

	// A box that scrolls sideways (a wide table on a laptop) can be reached
	// with the keyboard and scrolled with the arrow keys; one that fits is
	// no stop on the way.
	function reachScrolling() {
		document.querySelectorAll('main .table-wrap, main .overflow-auto').forEach(function (box) {
			if (box.scrollWidth > box.clientWidth + 1) {
				box.tabIndex = 0;
			} else if (box.getAttribute('tabindex') === '0') {
				box.removeAttribute('tabindex');
			}
		});
	}

	document.addEventListener('DOMContentLoaded', function () {
		labelTables(document);
		reachScrolling();
	});
	// Content htmx swaps in (a row, a table, a page section).
	document.addEventListener('htmx:load', function (e) {
		labelTables(e.target);
		reachScrolling();
	});
	window.addEventListener('resize', reachScrolling);
})();

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

	// Feedback is where the user acted: after a refused form, the first
	// field in error (else the page's alert, else its message) is brought
	// into view and focused, its folded section opened.
	function showFeedback(root) {
		var target = root.querySelector('[aria-invalid="true"]') ||
			root.querySelector('main [role="alert"]:not(:empty), [role="alert"]:not(:empty)') ||
			root.querySelector('.flash');
		if (!target) {
			return;
		}
		for (var d = target.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) {
			d.open = true;
		}
		if (!target.matches('input, select, textarea, button, a[href]') && !target.hasAttribute('tabindex')) {
			target.setAttribute('tabindex', '-1');
		}
		target.scrollIntoView({ block: 'center' });
		target.focus({ preventScroll: true });
	}

	document.addEventListener('DOMContentLoaded', function () {
		labelTables(document);
		reachScrolling();
		// A page answering a refused form: the address becomes the page's
		// own, so a refresh reloads it rather than sending the form again.
		var main = document.getElementById('main');
		if (main && main.dataset.pageUrl) {
			history.replaceState(null, '', main.dataset.pageUrl);
			showFeedback(document);
		} else if (document.querySelector('.flash')) {
			showFeedback(document);
		}
	});
	// Content htmx swaps in (a row, a table, a page section).
	document.addEventListener('htmx:load', function (e) {
		labelTables(e.target);
		reachScrolling();
	});
	// ... and after a form htmx sent (not a refresh of a live list).
	document.addEventListener('htmx:afterSwap', function (e) {
		var d = e.detail || {};
		var verb = d.requestConfig && d.requestConfig.verb;
		if (verb && verb !== 'get' && d.target && d.target.querySelector) {
			showFeedback(d.target);
		}
	});
	window.addEventListener('resize', reachScrolling);
})();

// vibe ui: reload a live page when the server says new spine entries landed.
// The page works without this script; it only saves pressing reload.
(function () {
  'use strict';
  var url = document.body && document.body.getAttribute('data-events');
  if (!url || !window.EventSource) {
    return;
  }
  var es = new EventSource(url);
  es.addEventListener('open', function () {
    var live = document.getElementById('live');
    if (live) {
      live.hidden = false;
    }
  });
  es.addEventListener('spine', function () {
    es.close();
    window.location.reload();
  });
  window.addEventListener('pagehide', function () { es.close(); });
})();

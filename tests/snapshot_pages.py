"""Web snapshots as Zotero saves them, chrome and all (issue 54): an arXiv abstract page and a research blog
post. Each lists the page chrome that must not be indexed and the article text that must be."""

from __future__ import annotations

ARXIV_TITLE = "Sparse Mixtures of Adapters for Continual Instruction Tuning"
ARXIV = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>[2409.01234] {ARXIV_TITLE}</title>
<link rel="stylesheet" href="arXiv.css"><script>window.MathJax = {{tex: {{inlineMath: [["$", "$"]]}}}};</script>
</head>
<body class="with-cu-identity">
<div class="flex-wrap-footer">
<header>
<a href="#content" class="is-sr-only">Skip to main content</a>
<div id="cu-identity"><div id="cu-logo"><a href="https://www.cornell.edu/">Cornell University</a></div>
<div id="support-ack"><span>We gratefully acknowledge support from the Simons Foundation,
<a href="https://info.arxiv.org/about/ourmembers.html">member institutions</a>, and all contributors.</span>
<a href="https://info.arxiv.org/about/donate.html">Donate</a></div></div>
<div id="header" class="is-hidden-mobile">
<div class="header-breadcrumbs"><a href="/">arXiv</a> &gt; <a href="/list/cs/recent">cs</a> &gt; arXiv:2409.01234</div>
<div class="search-block level-right"><form class="level-item mini-search" method="GET" action="/search">
<div class="field has-addons"><div class="control"><input class="input is-small" type="text" name="query"
placeholder="Search..." aria-label="Search term or terms"><p class="help"><a href="/help">Help</a> |
<a href="/search/advanced">Advanced Search</a></p></div>
<div class="control"><div class="select is-small"><select name="searchtype" aria-label="Field to search">
<option value="all" selected>All fields</option><option value="title">Title</option>
<option value="author">Author</option><option value="abstract">Abstract</option></select></div></div>
<input type="hidden" name="source" value="header"><button class="button is-small is-cul-darker">Search</button>
</div></form></div></div>
</header>
<main>
<div id="content">
<div id="abs-outer">
<div class="leftcolumn">
<div class="subheader"><h1>Computer Science &gt; Machine Learning</h1></div>
<div class="header-breadcrumbs-mobile"><strong>arXiv:2409.01234</strong> (cs)</div>
<div id="content-inner"><div id="abs">
<div class="dateline">[Submitted on 2 Sep 2024]</div>
<h1 class="title mathjax"><span class="descriptor">Title:</span>{ARXIV_TITLE}</h1>
<div class="authors"><span class="descriptor">Authors:</span><a href="/a/okafor_n_1">Ngozi Okafor</a>,
<a href="/a/lindqvist_e_1">Erik Lindqvist</a>, <a href="/a/tanaka_h_1">Hiroshi Tanaka</a></div>
<a class="mobile-submission-download" href="/pdf/2409.01234">View PDF</a>
<blockquote class="abstract mathjax"><span class="descriptor">Abstract:</span>Instruction-tuned language
models forget earlier tasks when they are tuned on new ones. We route each instruction to a sparse mixture
of low-rank adapters chosen by a learned gate, so that tasks share the adapters they have in common and keep
the ones they do not. On a benchmark of fifteen instruction datasets learned one after another, the sparse
mixture keeps ninety-one percent of the first task's accuracy while a single shared adapter keeps sixty-four
percent. Replaying two percent of earlier examples closes most of the remaining gap.</blockquote>
<div class="metatable"><table summary="Additional metadata">
<tr><td class="tablecell label">Comments:</td><td class="tablecell comments mathjax">12 pages, 4 figures</td></tr>
<tr><td class="tablecell label">Subjects:</td><td class="tablecell subjects"><span class="primary-subject">Machine
Learning (cs.LG)</span>; Computation and Language (cs.CL)</td></tr>
<tr><td class="tablecell label">Cite as:</td><td class="tablecell arxivid"><span class="arxivid">
<a href="https://arxiv.org/abs/2409.01234">arXiv:2409.01234</a> [cs.LG]</span></td></tr>
</table></div>
</div></div>
<div class="submission-history"><h2>Submission history</h2> From: Ngozi Okafor [<a href="/show-email/1">view
email</a>]<br><strong>[v1]</strong> Mon, 2 Sep 2024 14:05:11 UTC (812 KB)<br></div>
</div>
<div class="extra-services">
<div class="full-text"><a name="other"></a><span class="descriptor">Full-text links:</span>
<h2>Access Paper:</h2><ul><li><a href="/pdf/2409.01234" class="abs-button download-pdf">View PDF</a></li>
<li><a href="/html/2409.01234v1" class="abs-button">HTML (experimental)</a></li>
<li><a href="/src/2409.01234" class="abs-button download-eprint">TeX Source</a></li>
<li><a href="/format/2409.01234" class="abs-button download-format">Other Formats</a></li></ul>
<div class="abs-license"><a href="http://creativecommons.org/licenses/by/4.0/" title="Rights to this
article">view license</a></div></div>
<div class="browse">Current browse context: <div class="current">cs.LG</div>
<div class="prevnext"><span class="arrow"><a href="/prevnext?id=2409.01234&amp;function=prev">&lt;&nbsp;prev</a>
</span>&nbsp;|&nbsp;<span class="arrow"><a href="/prevnext?id=2409.01234&amp;function=next">next&nbsp;&gt;</a>
</span></div><div class="list"><a href="/list/cs.LG/new">new</a> | <a href="/list/cs.LG/recent">recent</a> |
<a href="/list/cs.LG/2024-09">2024-09</a></div><div class="abs-switch-cat">Change to browse by:
<div class="switch"><a href="/abs/2409.01234?context=cs">cs</a><br>
<a href="/abs/2409.01234?context=cs.CL">cs.CL</a></div></div></div>
<div class="extra-ref-cite"><h3>References &amp; Citations</h3><ul>
<li><a class="abs-button abs-button-small cite-ads" href="https://ui.adsabs.harvard.edu/abs/arXiv:2409.01234">NASA
ADS</a></li><li><a class="abs-button abs-button-small cite-google-scholar"
href="https://scholar.google.com/scholar_lookup?arxiv_id=2409.01234">Google Scholar</a></li>
<li><a class="abs-button abs-button-small cite-semantic-scholar"
href="https://api.semanticscholar.org/arXiv:2409.01234">Semantic Scholar</a></li></ul>
<div style="clear:both;"></div></div>
<div class="bookmarks"><div><h3>Bookmark</h3></div><a href="http://www.bibsonomy.org/BibtexHandler"
title="Bookmark on BibSonomy"><img src="bibsonomy.png" alt="BibSonomy logo"></a>
<a href="https://reddit.com/submit?url=https://arxiv.org/abs/2409.01234" title="Bookmark on Reddit">
<img src="reddit.png" alt="Reddit logo"></a></div>
</div>
<div id="labstabs"><div class="labstabs"><input type="radio" name="tabs" id="tabone" checked="checked">
<label for="tabone">Bibliographic Tools</label>
<div class="tab"><h1>Bibliographic and Citation Tools</h1><div class="toggle"><div class="columns is-mobile
lab-row"><div class="column lab-switch"><label class="switch"><input id="bibex-toggle" type="checkbox"
class="lab-toggle"><span class="slider"></span><span class="is-sr-only">Bibliographic Explorer Toggle</span>
</label></div><div class="column lab-name"><span id="label-for-bibex">Bibliographic Explorer</span>
<em>(<a href="https://info.arxiv.org/labs/showcase.html#arxiv-bibliographic-explorer">What is the
Explorer?</a>)</em></div></div>
<div class="columns is-mobile lab-row"><div class="column lab-switch"><label class="switch"><input
id="litmaps-toggle" type="checkbox" class="lab-toggle"><span class="slider"></span><span
class="is-sr-only">Litmaps Toggle</span></label></div><div class="column lab-name"><span
id="label-for-litmaps">Litmaps</span> <em>(<a href="https://www.litmaps.co/">What is Litmaps?</a>)</em>
</div></div></div></div>
<input type="radio" name="tabs" id="tabtwo"><label for="tabtwo">Code, Data, Media</label>
<input type="radio" name="tabs" id="labstabs-demos-input"><label for="labstabs-demos-input">Demos</label>
<input type="radio" name="tabs" id="tabfour"><label for="tabfour">Related Papers</label>
<input type="radio" name="tabs" id="tabfive"><label for="tabfive">About arXivLabs</label>
</div></div>
<div class="endorsers"><a href="https://arxiv.org/auth/show-endorsers/2409.01234" class="endorser-who">Which
authors of this paper are endorsers?</a> | <a id="mathjax_toggle" href="javascript:setMathjaxCookie()">Disable
MathJax</a> (<a href="https://info.arxiv.org/help/mathjax.html">What is MathJax?</a>)</div>
</div></div>
</main>
<footer style="clear: both;"><div class="columns is-desktop" role="navigation" aria-label="Secondary">
<div class="column"><ul class="nav-spaced"><li><a href="https://info.arxiv.org/about">About</a></li>
<li><a href="https://info.arxiv.org/help">Help</a></li></ul></div>
<div class="column"><ul class="nav-spaced"><li><a href="https://info.arxiv.org/help/contact.html">Contact</a></li>
<li><a href="https://info.arxiv.org/help/subscribe">Subscribe</a></li></ul></div>
<div class="column"><ul class="nav-spaced"><li><a href="https://info.arxiv.org/help/license/index.html">Copyright</a>
</li><li><a href="https://info.arxiv.org/help/policies/privacy_policy.html">Privacy Policy</a></li></ul></div>
<div class="column sorry-app-links"><ul class="nav-spaced"><li><a
href="https://info.arxiv.org/help/web_accessibility.html">Web Accessibility Assistance</a></li>
<li><p class="help"><a class="a11y-main-link" href="https://status.arxiv.org">arXiv Operational Status</a><br>
Get status notifications via <a class="is-link" href="https://subscribe.sorryapp.com/24846f03/email/new">email</a>
or <a class="is-link" href="https://subscribe.sorryapp.com/24846f03/slack/new">slack</a></p></li></ul></div>
</div></footer>
</div>
</body></html>"""
ARXIV_CHROME = (
    "Skip to main content",
    "We gratefully acknowledge support",
    "Advanced Search",
    "All fields",
    "Which authors of this paper are endorsers",
    "Disable MathJax",
    "Bookmark",
    "Google Scholar",
    "Change to browse by",
    "Web Accessibility Assistance",
    "Get status notifications",
    "Privacy Policy",
)
ARXIV_CONTENT = (
    "Instruction-tuned language models forget earlier tasks when they are tuned on new ones.",
    "Replaying two percent of earlier examples closes most of the remaining gap.",
)

BLOG_TITLE = "Teaching robots to fold laundry from a handful of demonstrations"
BLOG_SECTIONS = ("Learning from few demonstrations", "What the robot gets wrong", "References")
BLOG = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{BLOG_TITLE} – Research Blog</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script async src="https://www.googletagmanager.com/gtag/js"></script></head>
<body>
<div class="cookie-bar" role="dialog" aria-label="Cookie notice"><div class="cookie-bar__text">research.example
uses cookies from Google to deliver and enhance the quality of its services and to analyze traffic.
<a href="https://policies.example.com/technologies/cookies">Learn more</a>.</div>
<div class="cookie-bar__actions"><button class="cookie-bar__ok">OK, got it</button></div></div>
<a class="skip-link" href="#main-content">Jump to Content</a>
<header class="site-header"><a class="site-header__logo" href="/">Research</a>
<nav class="site-nav" aria-label="Main"><ul><li><a href="/research/">Research</a></li>
<li><a href="/people/">People</a></li><li><a href="/outreach/">Outreach</a></li>
<li><a href="/careers/">Careers</a></li><li><a href="/blog/">Blog</a></li></ul></nav>
<div class="site-header__search"><form action="/search"><input type="search" placeholder="Search the site">
</form></div></header>
<div class="breadcrumbs"><a href="/">Home</a> › <a href="/blog/">Blog</a> › Robotics</div>
<main id="main-content" class="page-main">
<div class="layout">
<article class="post">
<div class="post__header">
<h1 class="post__title">{BLOG_TITLE}</h1>
<div class="post__byline">March 4, 2024 · Amara Diallo and Tomás Ferreira, Research Scientists, Robotics team</div>
</div>
<div class="post__share"><span>Share</span> <a href="https://twitter.com/intent/tweet">Share on Twitter</a>
<a href="https://www.facebook.com/sharer/sharer.php">Share on Facebook</a>
<a href="https://www.linkedin.com/shareArticle">Share on LinkedIn</a>
<a href="mailto:?subject=Robots">Email this post</a><button class="copy-link">Copy link</button></div>
<div class="post__body">
<p>Folding a shirt is easy for a person and hard for a robot: cloth changes shape with every touch, and no
two shirts crumple the same way. Until now our robots needed thousands of demonstrations before they could
fold a single kind of garment reliably.</p>
<p>Today we describe a method that learns to fold a new garment from five demonstrations. It pretrains a
model of how cloth moves on simulated fabric and then adapts that model to the real garment from the few
demonstrations it is given.</p>
<h2>{BLOG_SECTIONS[0]}</h2>
<p>The model predicts where every visible point of the cloth will be after a grasp and a pull. Because the
prediction is about the cloth rather than the task, one model serves every folding task.</p>
<p>A planner then searches for the sequence of grasps whose predicted outcome matches the demonstrated fold,
and the robot executes the first grasp before planning again from what its camera sees.</p>
<h3>Simulation first</h3>
<p>We generated two million simulated pulls on garments of forty shapes, varying stiffness and friction so
that real fabric falls inside the range the model has seen.</p>
<h2>{BLOG_SECTIONS[1]}</h2>
<p>Thin, slippery fabrics remain hard: silk slides out of the gripper before the pull ends, and the model,
trained mostly on cotton, predicts folds that never happen.</p>
<p>The robot also struggles when a sleeve is hidden under the body of the shirt, because the camera cannot
see the points the model needs.</p>
<h2>{BLOG_SECTIONS[2]}</h2>
<ol>
<li>Diallo, Amara; Ferreira, Tomás (2023). "Cloth Dynamics Models for Robotic Folding". Conference on Robot
Learning. 229: 1120–1134.</li>
<li>Chen, Wei; Park, Jiyoon (2022). "Grasp Planning for Deformable Objects". IEEE Robotics and Automation
Letters. 7 (2): 3345–3352.</li>
<li>Okafor, Ngozi (2021). "Simulated Fabric at Scale". Robotics: Science and Systems. 17: 88–97.</li>
</ol>
</div>
<div class="post__tags">Posted in: <a href="/blog/label/robotics/">Robotics</a>
<a href="/blog/label/machine-learning/">Machine Learning</a></div>
</article>
<aside class="sidebar">
<div class="sidebar__block"><h2 class="sidebar__title">Related posts</h2><ul>
<li><a href="/blog/grasping-transparent-objects/">Grasping transparent objects with depth completion</a></li>
<li><a href="/blog/robot-kitchen/">A kitchen robot that learns from videos of people cooking</a></li>
<li><a href="/blog/sim-to-real/">Closing the gap between simulated and real robots</a></li></ul></div>
<div class="sidebar__block newsletter"><h2 class="sidebar__title">Stay up to date</h2>
<p>Subscribe to our newsletter for the latest research news delivered to your inbox.</p>
<form><input type="email" placeholder="Email address"><button>Subscribe</button></form></div>
</aside>
</div>
</main>
<footer class="site-footer"><div class="site-footer__links"><h2 class="is-sr-only">Footer links</h2><ul>
<li><a href="/about/">About the research team</a></li><li><a href="/privacy/">Privacy</a></li>
<li><a href="/terms/">Terms</a></li><li><a href="/help/">Help</a></li></ul></div>
<div class="site-footer__social">Follow us <a href="https://twitter.com/research">Twitter</a>
<a href="https://www.youtube.com/research">YouTube</a></div>
<p class="site-footer__copyright">© 2024 Example Research. All rights reserved.</p></footer>
</body></html>"""
BLOG_CHROME = (
    "uses cookies",
    "OK, got it",
    "Jump to Content",
    "Outreach",
    "Careers",
    "Share on Twitter",
    "Copy link",
    "Related posts",
    "Grasping transparent objects",
    "Subscribe to our newsletter",
    "Footer links",
    "All rights reserved",
    "Follow us",
)
BLOG_CONTENT = (
    "Folding a shirt is easy for a person and hard for a robot",
    "Today we describe a method that learns to fold a new garment from five demonstrations.",
    "The model predicts where every visible point of the cloth will be after a grasp and a pull.",
    "We generated two million simulated pulls on garments of forty shapes",
    "The robot also struggles when a sleeve is hidden under the body of the shirt",
)

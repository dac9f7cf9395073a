"""An evaluation web from real Debian documentation trees, its ground truth and its scorer.

``builder`` turns the HTML of Debian documentation packages (``packages``) into hosts that copy,
alias and imitate one another (``hazards``), recording what every URL is (``truth``); ``crawls``
serves that web on loopback and crawls it with real Scrapy in several orders (``orders``), with
the filter, without it and with a datasketch peer (``peer``); ``scorer`` judges each crawl from
the server's request log and the ground truth only, never from the filter's internals.
"""

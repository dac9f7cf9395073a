"""A tiny Scrapy project crawling the test web: a user's project with the filter on.

``settings.py`` carries the settings snippet of docs/scrapy.md; ``spider.py`` follows every link
on the ``*.test`` hosts and records each page that reaches its callback; ``run.py`` starts it as a
real ``scrapy crawl`` in a subprocess (through the test web's proxy) and reads back what happened.
"""

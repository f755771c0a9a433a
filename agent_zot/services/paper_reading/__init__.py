"""How a paper is read for an answer, shared by the tools that answer from its sentences (search's question
answers, summaries and targeted answers, the review matrix): every sentence with its role (roles.py) and the
kind of answer a question wants (questions.py)."""

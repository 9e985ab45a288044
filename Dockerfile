FROM node:20-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json* ./
RUN npm install --no-audit --no-fund
COPY . .
# TENET_HOST: the all-in-one binds loopback by default; in a container it must listen on every interface.
ENV NODE_ENV=production PORT=8800 TENET_HOST=0.0.0.0
EXPOSE 8800
CMD ["npm", "start"]
